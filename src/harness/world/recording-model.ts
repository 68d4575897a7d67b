/**
 * Every model client of the case, recorded from the outside: each request as it
 * was sent (the signal stripped) and how the call settled — with a result, by
 * rejecting or throwing (a contract violation), or not at all — and any delta
 * streamed after it settled. The provider-contract invariants read this.
 */
import type { ModelClient, ModelDelta, ModelRequest, ModelResult } from '../../kernel/index.ts';

/** What a sent request looked like (the signal stripped). */
export type SentRequest = Omit<ModelRequest, 'signal'>;

/** One provider call as the harness saw it, inside its recording. */
export interface ProviderCall {
  /** `result`: settled with a result; `rejected`: the promise rejected or the call threw (a contract violation); `pending`: still open when the run ended. */
  readonly settled: 'result' | 'rejected' | 'pending';
  readonly result?: ModelResult;
  readonly error?: string;
  /** Deltas streamed after the call settled (a contract violation). */
  readonly lateDeltas: number;
  /** When (the case's clock, with a `now` hook) it was sent, and when it settled. */
  readonly sentMs?: number;
  readonly settledMs?: number;
}

interface OpenCall {
  settled: ProviderCall['settled'];
  result?: ModelResult;
  error?: string;
  lateDeltas: number;
  sentMs?: number;
  settledMs?: number;
}

export interface RecordingHooks {
  /** Runs as the n-th request (1-based, across every client) goes out. */
  readonly onRequest?: (n: number) => void;
  /** Runs as the n-th streamed delta (1-based, across every call) arrives, before the loop sees it. */
  readonly onDelta?: (n: number) => void;
  /** Where the request sits in the case: which life of the log, and the seq of its `model.request` (the last event appended). */
  readonly origin?: () => RequestOrigin;
  /** Runs with each request as it goes out (the object kept in `requests`). */
  readonly onSent?: (request: SentRequest) => void;
  /** The case's clock: each call is stamped with when it was sent and settled (what a peer's retry-after is judged by). */
  readonly now?: () => number;
}

export interface RequestOrigin {
  readonly life: number;
  readonly seq: number;
}

export class ModelRecording {
  readonly requests: SentRequest[] = [];
  /** Aligned with `requests`. */
  readonly origins: RequestOrigin[] = [];
  readonly #responses: OpenCall[] = [];
  readonly #hooks: RecordingHooks;
  #deltas = 0;

  constructor(hooks: RecordingHooks = {}) {
    this.#hooks = hooks;
  }

  get responses(): readonly ProviderCall[] {
    return this.#responses;
  }

  /** Wraps a client so its calls are recorded. */
  wrap(inner: ModelClient): ModelClient {
    return {
      name: inner.name,
      ...(inner.model !== undefined ? { model: inner.model } : {}),
      call: (request: ModelRequest, onDelta?: (d: ModelDelta) => void) => {
        const { signal: _signal, ...given } = request;
        // As it was sent: a loop that hands over its own message list and goes on adding to it (or to a message of it)
        // must not rewrite the record (outside probe 45, F2). A frozen list (loopgate's own) cannot change: kept as is.
        const sent: SentRequest = Object.isFrozen(given.messages) ? given : { ...given, messages: copyOfMessages(given.messages) };
        this.requests.push(sent);
        this.origins.push(this.#hooks.origin?.() ?? { life: 0, seq: -1 });
        this.#hooks.onSent?.(sent);
        const now = this.#hooks.now;
        const response: OpenCall = { settled: 'pending', lateDeltas: 0, ...(now ? { sentMs: now() } : {}) };
        this.#responses.push(response);
        this.#hooks.onRequest?.(this.requests.length);
        const settle = (settled: ProviderCall['settled'], result?: ModelResult, error?: unknown) => {
          if (response.settled !== 'pending') return;
          response.settled = settled;
          if (now) response.settledMs = now();
          if (result !== undefined) response.result = result;
          if (error !== undefined) response.error = error instanceof Error ? error.message : String(error);
        };
        let call: Promise<ModelResult>;
        try {
          call = inner.call(request, (delta) => {
            if (response.settled !== 'pending') response.lateDeltas++;
            else this.#hooks.onDelta?.(++this.#deltas);
            onDelta?.(delta);
          });
        } catch (error) {
          settle('rejected', undefined, error);
          throw error;
        }
        Promise.resolve(call).then(
          (result) => settle('result', result),
          (error: unknown) => settle('rejected', undefined, error),
        );
        return call;
      },
    };
  }
}

/** The list, each message and each block of it copied (what a loop may go on changing in place). */
function copyOfMessages(messages: ModelRequest['messages']): ModelRequest['messages'] {
  if (!Array.isArray(messages)) return messages;
  return messages.map((m) =>
    m !== null && typeof m === 'object'
      ? ({
          ...m,
          ...(Array.isArray(m.content)
            ? { content: (m.content as readonly unknown[]).map((b: unknown) => (b !== null && typeof b === 'object' ? { ...b } : b)) }
            : {}),
        } as typeof m)
      : m,
  );
}
