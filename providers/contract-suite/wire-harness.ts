/**
 * The contract harness for a shipped adapter over its wire-level fake: each case
 * gets its own fake scenario, and the adapter (the real SDK underneath) parses
 * the bytes. Cases the provider's protocol cannot express are unsupported, with
 * the protocol's reason.
 */
import { createAdapter, type AdapterOptions } from '../clients.ts';
import type { WireProvider } from '../names.ts';
import { WIRE_KITS } from '../wire-fakes/kits.ts';
import type { WireFake } from '../wire-fakes/server.ts';
import { WIRE_FAKE_ORIGIN, acquireWireFake } from '../wire-fakes/server.ts';
import { bodyFailsWithFetch } from '../wire-fakes/body-fails-with.ts';
import { signalDroppingFetch } from '../wire-fakes/signal-dropping-fetch.ts';
import { connectTimeoutFetch } from '../wire-fakes/connect-timeout.ts';
import { requestConversation, sentConversation } from '../wire-fakes/conversation.ts';
import { pieces, UnsupportedOnWire } from '../wire-fakes/turn.ts';
import { CONTRACT_CASES } from './cases.ts';
import type { ContractHarness } from './harness.ts';
import { nonStreamingPlanFor, wirePlanFor } from './wire-plan.ts';

export interface WireHarnessOptions {
  /** Adapter options to test (model, stream…); apiKey and baseURL are the fake's. */
  readonly adapter?: Partial<Omit<AdapterOptions, 'apiKey' | 'baseURL'>>;
}

const DEFAULT_MODELS: Readonly<Record<WireProvider, string>> = {
  anthropic: 'claude-sonnet-4-6',
  'openai-chat': 'gpt-5.4',
  'openai-responses': 'gpt-5.4',
};

/** The key every adapter under test is given; no result or delta may carry it. */
const WIRE_FAKE_KEY = 'wire-fake-key-7c1e93ab';

export function createWireHarness(provider: WireProvider, options: WireHarnessOptions = {}): ContractHarness {
  const kit = WIRE_KITS[provider];
  const streaming = options.adapter?.stream ?? true;
  const planFor = streaming ? wirePlanFor : nonStreamingPlanFor;
  const unsupported: Record<string, string> = {};
  for (const testCase of CONTRACT_CASES) {
    try {
      planFor(kit, testCase.behaviour, { credential: WIRE_FAKE_KEY });
    } catch (error) {
      if (error instanceof UnsupportedOnWire) unsupported[testCase.id] = error.message;
      else throw error;
    }
  }
  let fake: WireFake | undefined;
  return {
    name: streaming ? `${provider} (wire fake)` : `${provider} (wire fake, no streaming)`,
    unsupported,
    adapterOptions: true,
    start() {
      fake ??= acquireWireFake();
    },
    stop() {
      fake?.release();
      fake = undefined;
    },
    clientFor({ behaviour, adapter: caseOptions }) {
      fake ??= acquireWireFake();
      const { keyless, ...adapter } = caseOptions ?? {};
      const key = keyless ? '' : WIRE_FAKE_KEY;
      let plan;
      try {
        plan = planFor(kit, behaviour, { credential: WIRE_FAKE_KEY });
      } catch (error) {
        if (error instanceof UnsupportedOnWire) return { unsupported: error.message };
        throw error;
      }
      const scenario = fake.scenario(plan);
      // The body the adapter hands its onRequest hook ("the exact body before it is sent", for the user's log).
      let given: { body: unknown } | undefined;
      const userHook = options.adapter?.onRequest;
      const onRequest = (body: unknown) => {
        given = { body };
        userHook?.(body);
      };
      let client;
      try {
        client = createAdapter(provider, {
          model: DEFAULT_MODELS[provider],
          ...options.adapter,
          ...adapter,
          ...(behaviour.kind === 'connect_timeout' ? { fetch: connectTimeoutFetch(new URL(WIRE_FAKE_ORIGIN).host) } : {}),
          ...(behaviour.kind === 'stream_fault' && behaviour.fault.type === 'reset' && behaviour.fault.failsWith
            ? { fetch: bodyFailsWithFetch(behaviour.fault.failsWith.value) }
            : {}),
          ...(behaviour.kind === 'stream_fault' && behaviour.fault.type === 'stall' && behaviour.fault.fetchDropsSignal
            ? { fetch: signalDroppingFetch() }
            : {}),
          apiKey: key,
          baseURL: scenario.baseURL(provider),
          onRequest,
        });
      } catch (error) {
        // The OpenAI SDK refuses a client with no key ("Missing credentials"); the Anthropic SDK sends without one.
        if (keyless) return { unsupported: `the ${provider} SDK refuses a client with no key: ${error instanceof Error ? error.message : String(error)}` };
        throw error;
      }
      return {
        client,
        streams: streaming,
        secrets: keyless ? [] : [WIRE_FAKE_KEY],
        ...(streaming ? { pieces } : {}),
        requestCount: () => scenario.requests.length,
        // The fake redacts the auth headers (authorization, x-api-key, api-key) as it records them.
        received: () => scenario.requests.map(({ path, headers, body }) => ({ path, headers, ...(body !== undefined ? { body } : {}) })),
        requestsAborted: () => scenario.abandoned(),
        sent: (request) => {
          const last = scenario.requests.at(-1);
          if (last === undefined) return undefined;
          const got = sentConversation(provider, last.body);
          // What onRequest was given must read as what went out: a key the wire never carried (one set to
          // undefined, which JSON leaves out) would show in the user's log of the request.
          const logged = given === undefined ? got : sentConversation(provider, given.body);
          const off = logged.findIndex((line, k) => got[k] !== line);
          const i = off >= 0 ? off : logged.length < got.length ? logged.length : -1;
          const told =
            i < 0
              ? got
              : [...got, `?: onRequest was given ${JSON.stringify(logged[i] ?? '(nothing)')} where the wire says ${JSON.stringify(got[i] ?? '(nothing)')}`];
          // And whether it streams: a log of the request that says it did not stream when it did misleads its reader.
          const streamed = (body: unknown): boolean => (body as { stream?: unknown } | null)?.stream === true;
          if (given !== undefined && streamed(given.body) !== streamed(last.body)) {
            told.push(`?: onRequest was given stream: ${streamed(given.body)} where the wire says stream: ${streamed(last.body)}`);
          }
          return { got: told, want: requestConversation(request, provider) };
        },
      };
    },
  };
}
