/**
 * The around stage for one execution: the tool races its timeout and the turn's
 * abort signal. The race is what guarantees settlement (invariant 12): a tool that
 * ignores its signal and never resolves still loses to the timer. When the race is
 * lost, the tool's own signal is aborted so a well-behaved tool stops.
 *
 * Written for the common case, which costs nothing to race: a tool that returns
 * (or throws) synchronously has settled before any timer could fire or any abort
 * be seen, so the outcome is returned as it is — no promise, no timer, no
 * listener. Only a tool that returns a promise is raced, on the clock's shared
 * timer (`Clock.setTimer`; `sleep` on a clock without one) and a watcher of the
 * turn's signal (abort-watch.ts).
 */
import { unwatchAbort, watchAbort } from '../abort-watch.ts';
import { resumeTime, suspendTime, type Clock, type ClockTimer } from '../clock.ts';
import type { AnyToolDeclaration, ToolRunContext } from './types.ts';

export type AttemptOutcome =
  | { readonly kind: 'returned'; readonly value: unknown }
  | { readonly kind: 'threw'; readonly error: unknown }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'aborted' };

export interface AttemptInput {
  readonly declaration: AnyToolDeclaration;
  readonly args: unknown;
  readonly clock: Clock;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly callId: string;
  readonly attempt: number;
  readonly idempotencyKey: string;
  readonly traceparent?: string | undefined;
}

export class ToolTimeoutError extends Error {
  constructor(tool: string, ms: number) {
    super(`${tool} timed out after ${ms} ms`);
    this.name = 'ToolTimeoutError';
  }
}

/**
 * Why the timeout's sleep is released once the race is decided (on a clock
 * without `setTimer`). Aborting without a reason would build a DOMException (with
 * its stack trace); nobody reads this reason.
 */
const RACE_DECIDED = 'the attempt settled';

const ABORTED: AttemptOutcome = Object.freeze({ kind: 'aborted' });
const TIMEOUT: AttemptOutcome = Object.freeze({ kind: 'timeout' });

/** The tool's own abort signal: aborted (with its reason) when the race is lost. */
class ToolAbort {
  readonly #controller = new AbortController();

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    if (!this.#controller.signal.aborted) this.#controller.abort(reason);
  }
}

function contextFor(input: AttemptInput, abort: ToolAbort): ToolRunContext {
  const context: { -readonly [K in keyof ToolRunContext]: ToolRunContext[K] } = {
    signal: abort.signal,
    callId: input.callId,
    attempt: input.attempt,
    idempotencyKey: input.idempotencyKey,
  };
  if (input.traceparent !== undefined) context.traceparent = input.traceparent;
  return context;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';
}

/** Runs one attempt: the outcome at once when the tool settles synchronously, else a promise of it (never rejects). */
export function runAttempt(input: AttemptInput): AttemptOutcome | Promise<AttemptOutcome> {
  const { declaration, signal } = input;
  const abort = new ToolAbort();
  if (signal.aborted) {
    abort.abort(signal.reason);
    return ABORTED;
  }
  let value: unknown;
  let threw = false;
  const held = suspendTime(); // the tool's run on the real clock, whatever holds the kernel's timestamp
  try {
    value = declaration.run(input.args, contextFor(input, abort));
  } catch (error) {
    value = error;
    threw = true;
  } finally {
    resumeTime(held);
  }
  // Aborted while the tool's body ran (a cancel it set off itself, say): the abort
  // is seen first, as a listener attached before the run would have seen it.
  if (signal.aborted) {
    abort.abort(signal.reason);
    if (!threw && isThenable(value)) Promise.resolve(value).catch(() => undefined); // nobody waits for it now
    return ABORTED;
  }
  if (threw) return { kind: 'threw', error: value };
  if (!isThenable(value)) return { kind: 'returned', value };
  return race(input, abort, value);
}

/** A tool that returned a promise: it races its timeout and the turn's signal. */
function race(input: AttemptInput, abort: ToolAbort, pending: PromiseLike<unknown>): Promise<AttemptOutcome> {
  const { declaration, signal, clock } = input;
  return new Promise<AttemptOutcome>((resolve) => {
    let done = false;
    let timer: ClockTimer | undefined;
    let sleeping: AbortController | undefined;
    const settle = (outcome: AttemptOutcome) => {
      if (done) return;
      done = true;
      unwatchAbort(signal, onAbort);
      timer?.cancel();
      sleeping?.abort(RACE_DECIDED); // releases the timeout's sleep
      if (outcome === TIMEOUT) abort.abort(new ToolTimeoutError(declaration.name, input.timeoutMs));
      resolve(outcome);
    };
    const onAbort = () => {
      abort.abort(signal.reason);
      settle(ABORTED);
    };
    const onTimeout = () => settle(TIMEOUT);
    watchAbort(signal, onAbort);
    if (clock.setTimer) timer = clock.setTimer(input.timeoutMs, onTimeout);
    else {
      sleeping = new AbortController();
      clock.sleep(input.timeoutMs, sleeping.signal).then(onTimeout, onTimeout);
    }
    Promise.resolve(pending).then(
      (value) => settle({ kind: 'returned', value }),
      (error: unknown) => settle({ kind: 'threw', error }),
    );
  });
}
