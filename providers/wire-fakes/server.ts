/**
 * The wire-level fake: msw intercepts requests to a fake origin, and each
 * scenario (a prefix of that origin) answers with planned bytes. The real SDKs
 * parse them, exactly as they would parse a provider's answer.
 *
 * A request body the provider would refuse (request-rules.ts) is answered with
 * the provider's 400 invalid_request_error instead of the plan, as the real API
 * would answer it.
 *
 * msw patches the process's network layer, so there is one shared instance per
 * process; `acquireWireFake()` starts it and `release()` stops it when the last
 * user is done. Scenarios are independent, so tests may run side by side.
 */
import { setupServer, type SetupServer } from 'msw/node';
import { http } from 'msw';
import type { WireProvider } from '../names.ts';
import type { WirePlan } from './plan.ts';
import { planResponse } from './serve.ts';
import { providerOfPath, requestProblems } from './request-rules.ts';

export const WIRE_FAKE_ORIGIN = 'http://wire-fake.loopgate.test';

/** A request as the fake received it (auth headers redacted). */
export interface ReceivedRequest {
  readonly method: string;
  /** Path after the scenario prefix, e.g. `/v1/messages` or `/v1/chat/completions`. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON body, or the raw text when it was not JSON. */
  readonly body: unknown;
}

export type Responder = (request: ReceivedRequest, index: number) => WirePlan;

export interface WireScenario {
  readonly id: string;
  /** The base URL to give the SDK client for this provider. */
  baseURL(provider: WireProvider): string;
  /** Every request this scenario received, in order. */
  readonly requests: readonly ReceivedRequest[];
  /** How many of them the client aborted (its side closed the connection) before the answer ended. */
  abandoned(): number;
  /** What the fake refused in each request the provider would refuse (a malformed body): answered 400, nothing served. */
  readonly refused: readonly string[];
}

/**
 * The header each provider takes its key in, redacted as a request is recorded; every other header is kept as sent,
 * so that a key copied into one — a cookie, another provider's auth header — is seen (review of stop 59, MED-1).
 * A path no provider serves: all of them.
 */
const AUTH_HEADERS: Readonly<Record<WireProvider, readonly string[]>> = {
  anthropic: ['x-api-key', 'authorization'], // its API takes `Authorization: Bearer` too, which the SDK now sends
  'openai-chat': ['authorization'],
  'openai-responses': ['authorization'],
};
const ANY_AUTH_HEADER = ['authorization', 'x-api-key', 'api-key', 'cookie'];

let server: SetupServer | undefined;
let users = 0;
let nextId = 0;
const scenarios = new Map<
  string,
  { responder: Responder; requests: ReceivedRequest[]; abandoned: Set<number>; refused: string[]; apiKey: string | undefined }
>();

async function readBody(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function startServer(): SetupServer {
  const instance = setupServer(
    http.all(`${WIRE_FAKE_ORIGIN}/s/:scenario/*`, async ({ request, params }) => {
      const id = String(params.scenario);
      const scenario = scenarios.get(id);
      const url = new URL(request.url);
      const path = url.pathname.slice(`/s/${id}`.length) + url.search;
      if (!scenario) {
        return Response.json({ error: { type: 'not_found_error', message: `wire fake: no scenario "${id}" (was it disposed?)` } }, { status: 404 });
      }
      // A scenario that names its key answers any other as the provider does: 401, nothing served.
      if (scenario.apiKey !== undefined && keyOf(request.headers) !== scenario.apiKey) return unauthorized(providerOfPath(path) ?? 'openai-chat');
      const headers: Record<string, string> = {};
      const served = providerOfPath(path);
      const auth = served ? AUTH_HEADERS[served] : ANY_AUTH_HEADER;
      request.headers.forEach((value, name) => {
        headers[name] = auth.includes(name.toLowerCase()) ? '[REDACTED]' : value;
      });
      const received: ReceivedRequest = { method: request.method, path, headers, body: await readBody(request) };
      const index = scenario.requests.length;
      scenario.requests.push(received);
      // The request's signal is the client's: it aborts when the client gives the connection up.
      if (request.signal.aborted) scenario.abandoned.add(index);
      else request.signal.addEventListener('abort', () => scenario.abandoned.add(index), { once: true });
      const provider = request.method === 'POST' ? providerOfPath(path) : undefined;
      const problems = provider ? requestProblems(provider, received.body) : [];
      if (provider && problems.length > 0) {
        scenario.refused.push(problems.join('; '));
        return invalidRequest(provider, `wire fake: the provider would refuse this request: ${problems.join('; ')}`);
      }
      let plan: WirePlan;
      try {
        plan = scenario.responder(received, index);
      } catch (error) {
        return Response.json({ error: { type: 'wire_fake_error', message: `wire fake responder failed: ${(error as Error).message}` } }, { status: 500 });
      }
      return planResponse(provider ? askedFor(provider, received.body, plan) : plan, request.signal);
    }),
  );
  instance.listen({ onUnhandledFrame: 'bypass' });
  return instance;
}

/**
 * What the provider streams for this request: Chat Completions sends its usage chunk only when the request asks
 * (`stream_options.include_usage`), so a client that stops asking gets none, as from the API.
 */
function askedFor(provider: WireProvider, body: unknown, plan: WirePlan): WirePlan {
  if (provider !== 'openai-chat' || plan.kind !== 'stream') return plan;
  const options = (body as { stream_options?: { include_usage?: unknown } } | null)?.stream_options;
  return options?.include_usage === true ? plan : { ...plan, frames: plan.frames.filter((frame) => frame.tag !== 'usage') };
}

/** The provider's own 400 answer to a request it refuses. */
function invalidRequest(provider: WireProvider, message: string): Response {
  const body =
    provider === 'anthropic'
      ? { type: 'error', error: { type: 'invalid_request_error', message } }
      : { error: { message, type: 'invalid_request_error', param: null, code: null } };
  return Response.json(body, { status: 400 });
}

/** The API key a request carries: Anthropic's `x-api-key`, else OpenAI's `Authorization: Bearer`. */
function keyOf(headers: Headers): string | undefined {
  const anthropic = headers.get('x-api-key');
  if (anthropic !== null) return anthropic;
  const bearer = /^Bearer (.*)$/.exec(headers.get('authorization') ?? '');
  return bearer?.[1];
}

/** The provider's own 401 answer to a request without the key it expects (the key is never echoed). */
function unauthorized(provider: WireProvider): Response {
  const body =
    provider === 'anthropic'
      ? { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }
      : { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } };
  return Response.json(body, { status: 401 });
}

export interface ScenarioOptions {
  /** The only API key the scenario serves: a request carrying another is answered 401 (and not counted as served). */
  readonly apiKey?: string;
}

export interface WireFake {
  /** Registers a scenario: a fixed plan, a plan per request (last one repeats), or a function. */
  scenario(answer: WirePlan | readonly WirePlan[] | Responder, options?: ScenarioOptions): WireScenario;
  /** Stops intercepting when the last user releases. */
  release(): void;
}

export function acquireWireFake(): WireFake {
  server ??= startServer();
  users++;
  let released = false;
  const own: string[] = [];
  return {
    scenario(answer, options = {}) {
      const id = `w${++nextId}`;
      const responder: Responder =
        typeof answer === 'function'
          ? answer
          : Array.isArray(answer)
            ? (_request, index) => (answer as readonly WirePlan[])[Math.min(index, (answer as readonly WirePlan[]).length - 1)]!
            : () => answer as WirePlan;
      const requests: ReceivedRequest[] = [];
      const abandoned = new Set<number>();
      const refused: string[] = [];
      scenarios.set(id, { responder, requests, abandoned, refused, apiKey: options.apiKey });
      own.push(id);
      return {
        id,
        requests,
        refused,
        abandoned: () => abandoned.size,
        baseURL(provider) {
          const root = `${WIRE_FAKE_ORIGIN}/s/${id}`;
          return provider === 'anthropic' ? root : `${root}/v1`;
        },
      };
    },
    release() {
      if (released) return;
      released = true;
      for (const id of own) scenarios.delete(id);
      users--;
      if (users === 0 && server) {
        server.close();
        server = undefined;
      }
    },
  };
}
