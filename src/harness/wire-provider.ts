/**
 * A scenario's provider at the wire level: each scripted step is written in the
 * provider's real HTTP/SSE protocol by the wire-level fake, and the real SDK —
 * inside loopgate's adapter — parses the bytes. Faults become what they are on
 * the wire: error statuses with the provider's bodies, resets, malformed lines.
 */
import type { Behaviour } from '../../providers/contract-suite/behaviours.ts';
import { wirePlanFor } from '../../providers/contract-suite/wire-plan.ts';
import { sendsRetryAfterMs, type WireProvider } from '../../providers/names.ts';
import { WIRE_KITS } from '../../providers/wire-fakes/kits.ts';
import { jsonPlan, type WirePlan } from '../../providers/wire-fakes/plan.ts';
import { type TurnBlock, UnsupportedOnWire, type WireTurn } from '../../providers/wire-fakes/turn.ts';
import type { Clock, ModelClient, ModelRequest, ModelResult } from '../kernel/index.ts';
import type { ProviderStep } from './scenario/schema.ts';
import { BROKEN_STREAM, cutCallOf, type MidStream } from './world/scripted-provider.ts';
import type { VirtualClock } from './virtual-clock.ts';

/** The turn a stream that breaks after its 200 (`error.midStream`) was sending: what the scripted provider streams first (BROKEN_STREAM). */
function brokenTurn(at: MidStream, usage: WireTurn['usage']): { turn: WireTurn } {
  const text: TurnBlock = { type: 'text', text: BROKEN_STREAM.text };
  const cut = cutCallOf(at);
  if (!cut) return { turn: { blocks: [text], stop: 'end', usage } };
  // The whole call is written; the stream breaks after its first piece of arguments.
  return { turn: { blocks: [text, { type: 'tool_call', id: cut.id, name: cut.name, args: cut.whole }], stop: 'tool_use', usage } };
}

/** Where the stream breaks: after the first piece of text, or of the call's arguments. */
function afterTag(at: MidStream): 'text_delta' | 'args_delta' {
  return cutCallOf(at) ? 'args_delta' : 'text_delta';
}

export class WireStepError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireStepError';
  }
}

/**
 * The contract behaviour a scenario step asks of the provider (`provider`: whose
 * 429 headers to send). Throws WireStepError when the wire cannot say it.
 */
export function behaviourFor(step: ProviderStep, index: number, callIds: { next: number }, provider?: WireProvider): Behaviour {
  // The cache counts too: a fake that dropped them would hide how an adapter reads them (probe 10, F7).
  const usage = {
    input: step.usage?.input ?? 10,
    output: step.usage?.output ?? 5,
    ...(step.usage?.cacheRead !== undefined ? { cacheRead: step.usage.cacheRead } : {}),
    ...(step.usage?.cacheWrite !== undefined ? { cacheWrite: step.usage.cacheWrite } : {}),
  };
  // `input` is the whole prompt, cache reads and writes included: a step with more cache tokens than
  // input has no wire form (Anthropic's uncached count would be negative), and ran to blame the adapter.
  const cached = (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0);
  if (cached > usage.input) {
    const named = [usage.cacheRead !== undefined ? 'usage.cacheRead' : '', usage.cacheWrite !== undefined ? 'usage.cacheWrite' : '']
      .filter(Boolean)
      .join(' + ');
    throw new WireStepError(
      `${named} (${cached}) exceed${named.includes('+') ? '' : 's'} usage.input (${usage.input}): input is the whole prompt, cache reads and writes included`,
    );
  }
  const turn = (blocks: TurnBlock[], stop: WireTurn['stop'], extra: Partial<WireTurn> = {}): Behaviour => ({
    kind: 'turn',
    turn: { blocks, stop, usage, ...extra },
  });
  if (step.reply !== undefined) {
    // A reply that quotes the key: the fake writes the key the adapter sent where the template says (wire-plan.ts).
    const reply = step.quotesKey ? quotedReply(step.reply, keyTemplate(step.quotesKey)) : step.reply;
    return {
      ...turn(
        [step.text, reply].flatMap((text): TurnBlock[] => (text ? [{ type: 'text', text }] : [])),
        step.stopSequence ? 'stop_sequence' : 'end',
      ),
      ...(step.quotesKey ? { quotesCredential: true } : {}),
    } as Behaviour;
  }
  if (step.tool_use) {
    const blocks: TurnBlock[] = step.text ? [{ type: 'text', text: step.text }] : [];
    for (const c of step.tool_use)
      blocks.push({
        type: 'tool_call',
        id: c.id ?? `call_${callIds.next++}`,
        name: c.name,
        args: typeof c.args === 'string' ? c.args : JSON.stringify(c.args ?? {}),
      });
    return turn(blocks, 'tool_use', { ...(step.interleaved ? { interleaved: true } : {}), ...(step.argsInFirstChunk ? { argsInFirstChunk: true } : {}) });
  }
  if (step.max_tokens) {
    const blocks: TurnBlock[] = step.max_tokens.text ? [{ type: 'text', text: step.max_tokens.text }] : [];
    const cut = step.max_tokens.args;
    const args = cut === undefined ? '{"order_id": "ORD-10' : typeof cut === 'string' ? cut : JSON.stringify(cut);
    if (step.max_tokens.partial) blocks.push({ type: 'tool_call', id: `call_${callIds.next++}`, name: 'issue_refund', args });
    return turn(blocks, 'max_tokens', step.max_tokens.closed ? { cutCallDoneIncomplete: true } : {});
  }
  if (step.refusal !== undefined) return turn([], 'refusal', { refusal: { text: step.refusal } });
  if (step.overflow === 'request')
    return {
      kind: 'http_error',
      error: step.overflowToldBy === 'code' ? 'overflow_by_code' : step.overflowToldBy === 'words' ? 'overflow_by_words' : 'overflow',
    };
  if (step.overflow === 'generation') return turn([{ type: 'text', text: 'partial' }], 'overflow');
  if (step.unknown !== undefined) return turn([], { unknown: step.unknown });
  const error = step.error!;
  const retryAfterSeconds = error.retryAfterMs !== undefined ? Math.ceil(error.retryAfterMs / 1000) : undefined;
  // The headers an HTTP error of any status carries when the step gives retryAfterMs (providers send them on 429s, 503s and 529s alike).
  // As an HTTP date, retry-after alone (written as the request is answered, on the adapter's clock).
  const asDate = error.retryAfterAs === 'date';
  const retryHeaders = {
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds, ...(asDate ? { retryAfterAsDate: true } : {}) } : {}),
    ...(error.retryAfterMs !== undefined && sendsRetryAfterMs(provider) && !asDate ? { retryAfterMsHeader: error.retryAfterMs } : {}),
  };
  // A message quoting the key the request carried: the fake writes the key in (`credential`, wire-plan.ts).
  const quoting = error.quotesKey ? { quotesCredential: error.quotesKey } : {};
  switch (error.kind) {
    case 'rate_limited':
      return { kind: 'http_error', error: 'rate_limited', ...(error.status ? { status: error.status } : {}), ...retryHeaders, ...quoting };
    case 'overloaded':
      // Inside a 200 stream: some text (and part of a call), then the provider's error event (Anthropic's `event: error`, OpenAI's error chunk).
      if (error.midStream)
        return { kind: 'stream_fault', ...brokenTurn(error.midStream, usage), fault: { type: 'error_event', after: afterTag(error.midStream) } };
      return { kind: 'http_error', error: 'overloaded', ...(error.status ? { status: error.status } : {}), ...retryHeaders, ...quoting };
    case 'server_error':
      return { kind: 'http_error', error: 'server_error', ...(error.status ? { status: error.status } : {}), ...retryHeaders, ...quoting };
    case 'auth':
      // Out of quota or credit: the provider's account error, with the status and retry-after a gateway may send it with.
      if (error.quota) return { kind: 'http_error', error: 'quota', ...(error.status ? { status: error.status } : {}), ...retryHeaders, ...quoting };
      return { kind: 'http_error', error: 'auth', ...quoting };
    case 'network':
      // After the 200 and some text (and part of a call), the connection drops.
      if (error.midStream) return { kind: 'stream_fault', ...brokenTurn(error.midStream, usage), fault: { type: 'reset', after: afterTag(error.midStream) } };
      return { kind: 'reset_before_response' };
    case 'malformed_stream':
      // A stream closed cleanly without the events that end it, or one with a broken line in it.
      if (error.missingEnd)
        return { kind: 'stream_fault', turn: { blocks: [{ type: 'text', text: 'hello' }], stop: 'end', usage }, fault: { type: 'drop_end' } };
      return {
        kind: 'stream_fault',
        turn: { blocks: [{ type: 'text', text: 'hello' }], stop: 'end', usage },
        fault: { type: 'malformed', after: 'text_delta' },
      };
    case 'timeout':
      return { kind: 'stream_fault', turn: { blocks: [{ type: 'text', text: 'hello' }], stop: 'end', usage }, fault: { type: 'stall', after: 'text_delta' } };
    case 'invalid_request':
    case 'aborted':
      throw new WireStepError(`provider step ${index + 1}: error kind "${error.kind}" cannot be produced on the wire (use kind: scripted)`);
  }
}

/**
 * Why `provider`'s wire cannot say the script step `index` (as its fake would
 * write it), or undefined when it can. Read when a scenario is loaded, so a step
 * the wire cannot say is an input error naming it, not a case that throws.
 */
export function unsayableOnWire(provider: WireProvider, step: ProviderStep, index: number): string | undefined {
  try {
    wirePlanFor(WIRE_KITS[provider], behaviourFor(step, index, { next: 1 }, provider), { credential: 'a-key-to-quote' });
    return undefined;
  } catch (error) {
    if (error instanceof UnsupportedOnWire || error instanceof WireStepError) return error.message;
    throw error;
  }
}

/** A request the loop gave the adapter, and the JSON body the SDK put on the wire for it. */
export interface WireSent {
  readonly request: ModelRequest;
  readonly body: unknown;
}

export interface WireProviderHandle {
  /** The client over the wire fake, built here with the scenario's key (a host built from its YAML builds its own: `track`). */
  readonly client: ModelClient;
  /** What a host's config names to reach this script: the SDK's base URL and the one key the fake serves. */
  readonly baseURL: string;
  readonly apiKey: string;
  /** A client the host built itself (from its config) for this script, its results recorded as `client`'s are. */
  track(adapter: ModelClient): ModelClient;
  release(): void;
  /** The adapter's result for each step of the script the fake served, in order (undefined: never settled with one). */
  results(): (ModelResult | undefined)[];
  /** For each step the fake served, the request the loop asked the adapter to send and the body the SDK sent for it. */
  sent(): (WireSent | undefined)[];
  /** Why the fake refused each request the provider would refuse (a malformed body the adapter built). */
  refused(): readonly string[];
  /** The step the fake served last: while a call streams, its own (a call cancelled before it was sent serves none). */
  serving(): ProviderStep | undefined;
}

/**
 * A reply step's text with `quotesKey`: the reply, then a sentence quoting the key as `written` — a template the fake
 * fills with the key it serves (adapter-follows-the-wire fills it too, and redacts it as the adapter must).
 */
export function quotedReply(reply: string, written: string): string {
  return [reply, `The key you sent is ${written}.`].filter((t) => t !== '').join(' ');
}

/** Where the fake writes the key, in the form a reply step's `quotesKey` asks for (wire-plan.ts `withCredential`). */
export function keyTemplate(form: NonNullable<ProviderStep['quotesKey']>): string {
  return form === true ? '{{credential}}' : `{{credential:${form}}}`;
}

/**
 * A ModelClient for `provider` whose answers are the scenario's script, over the
 * wire fake. The SDKs and msw load here, for the first wire case: a run without
 * one never loads them. The fake serves only `apiKey`: a request carrying any
 * other is answered 401, as the provider answers it.
 */
export async function wireProvider(
  provider: WireProvider,
  steps: readonly ProviderStep[],
  model: string,
  apiKey = 'wire-fake-key',
  /** The case's clock: a retry-after HTTP date is written and read on it, and each call's deadline runs on it. */
  clock?: Pick<Clock, 'now'> & Partial<Pick<Clock, 'setTimer'>>,
): Promise<WireProviderHandle> {
  const now = clock ? () => clock.now() : undefined;
  const kit = WIRE_KITS[provider];
  const callIds = { next: 1 };
  const behaviours = steps.map((step, i) => behaviourFor(step, i, callIds, provider));
  // A step whose answer quotes the key (`quotesKey`) quotes the one the fake serves: the key the adapter sent.
  const plans: WirePlan[] = behaviours.map((behaviour) => wirePlanFor(kit, behaviour, { credential: apiKey }));
  // A retry-after HTTP date is written as the request is answered, on the clock the adapter reads it with.
  const planAt = (index: number): WirePlan | undefined => {
    const behaviour = behaviours[index];
    return behaviour?.kind === 'http_error' && behaviour.retryAfterAsDate
      ? wirePlanFor(kit, behaviour, { credential: apiKey, ...(now ? { now } : {}) })
      : plans[index];
  };
  const [{ acquireWireFake }, { createAdapter }] = await Promise.all([import('../../providers/wire-fakes/server.ts'), import('../../providers/clients.ts')]);
  const fake = acquireWireFake();
  /** Script steps served, in order: a call that never reached the fake (cancelled before it was sent) serves none. */
  const served: number[] = [];
  /** The body of each request the fake received, by the script step it served. */
  const bodies: unknown[] = [];
  const scenario = fake.scenario(
    (received, index) => {
      served.push(index);
      bodies[index] = received.body;
      // A script that runs out answers as the scripted provider does: an invalid request (400), which fails the turn at once.
      return planAt(index) ?? jsonPlan(400, exhausted(provider, index));
    },
    { apiKey },
  );
  const results: (ModelResult | undefined)[] = [];
  const asked: ModelRequest[] = [];
  // The loop asks one model call at a time, so the step the fake serves during a call is that call's.
  const track = (adapter: ModelClient): ModelClient => ({
    name: adapter.name,
    ...(adapter.model !== undefined ? { model: adapter.model } : {}),
    call: (request, onDelta) => {
      const before = served.length;
      const call = adapter.call(request, onDelta);
      void Promise.resolve(call).then(
        (result) => {
          const step = served[before];
          if (step !== undefined && served.length === before + 1) {
            results[step] = result;
            asked[step] = request;
          }
        },
        () => undefined,
      );
      return call;
    },
  });
  const baseURL = scenario.baseURL(provider);
  return {
    client: track(
      createAdapter(provider, {
        apiKey,
        baseURL,
        model,
        ...(now ? { now } : {}),
        ...(clock?.setTimer ? { setTimer: (ms: number, fire: () => void) => clock.setTimer!(ms, fire) } : {}),
      }),
    ),
    baseURL,
    apiKey,
    track,
    release: () => fake.release(),
    results: () => Array.from({ length: served.length }, (_, i) => results[i]),
    refused: () => [...scenario.refused],
    sent: () =>
      Array.from({ length: served.length }, (_, i) => (asked[i] !== undefined && bodies[i] !== undefined ? { request: asked[i], body: bodies[i] } : undefined)),
    serving: () => {
      const index = served.at(-1);
      return index === undefined ? undefined : steps[index];
    },
  };
}

/** The provider's 400 body saying the scenario's script ran out. */
function exhausted(provider: WireProvider, index: number): unknown {
  const message = `scenario provider script exhausted at request ${index + 1}: add a step`;
  return provider === 'anthropic'
    ? { type: 'error', error: { type: 'invalid_request_error', message } }
    : { error: { message, type: 'invalid_request_error', param: null, code: null } };
}

/**
 * A client doing real I/O (a wire fake, a live API): virtual time stands still
 * while a request is on the wire, except that each streamed delta takes the
 * step's `deltaMs` (so a timed entry can land mid-stream). A stalled stream
 * (`error: { kind: timeout }`) holds time still only until its first piece
 * arrives: from then on nothing more is coming, so virtual time runs on to the
 * model timeout, which is what ends it (outside probe 58, HIGH-1: it never ended).
 * `serving` names the step the fake is serving (read as a delta arrives, so
 * after it served this call's request): counting calls instead would drift
 * after a call cancelled before it was sent, which the fake never served.
 */
export function withTimeOnTheWire(real: ModelClient, clock: VirtualClock, serving: () => ProviderStep | undefined): ModelClient {
  return {
    name: real.name,
    ...(real.model !== undefined ? { model: real.model } : {}),
    call: (request, onDelta) => {
      let stalled: (() => void) | undefined;
      const stalling = new Promise<void>((resolve) => (stalled = resolve));
      const result = real.call(request, (delta) => {
        const step = serving();
        // Released before the listener runs: a listener that throws must not keep time held.
        if (step?.error?.kind === 'timeout') stalled?.();
        const deltaMs = step?.deltaMs ?? 0;
        if (deltaMs > 0) clock.elapse(deltaMs);
        onDelta?.(delta);
      });
      // Providers never reject; a rejection is the caller's to see, not an unhandled one here.
      void clock.track(Promise.race([result, stalling])).catch(() => undefined);
      return result;
    },
  };
}
