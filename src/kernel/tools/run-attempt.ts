/**
 * The around stage for one execution: the tool races its timeout and the turn's
 * abort signal. The race is what guarantees settlement (invariant 12): a tool that
 * ignores its signal and never resolves still loses to the timer. When the race is
 * lost, the tool's own signal is aborted so a well-behaved tool stops.
 */
import type { Clock } from '../clock.ts';
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
 * Why the timeout's sleep is released once the race is decided. Aborting without a
 * reason would build a DOMException (with its stack trace) for every tool call;
 * nobody reads this reason.
 */
const RACE_DECIDED = 'the attempt settled';

export function runAttempt(input: AttemptInput): Promise<AttemptOutcome> {
  const { declaration, signal } = input;
  const toolAbort = new AbortController();
  const timer = new AbortController();
  return new Promise<AttemptOutcome>((resolve) => {
    let done = false;
    const settle = (outcome: AttemptOutcome) => {
      if (done) return;
      done = true;
      signal.removeEventListener('abort', onAbort);
      timer.abort(RACE_DECIDED); // releases the timeout's sleep
      if (outcome.kind === 'timeout') toolAbort.abort(new ToolTimeoutError(declaration.name, input.timeoutMs));
      resolve(outcome);
    };
    const onAbort = () => {
      toolAbort.abort(signal.reason);
      settle({ kind: 'aborted' });
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });

    input.clock.sleep(input.timeoutMs, timer.signal).then(
      () => settle({ kind: 'timeout' }),
      () => settle({ kind: 'timeout' }),
    );
    const context: ToolRunContext = {
      signal: toolAbort.signal,
      callId: input.callId,
      attempt: input.attempt,
      idempotencyKey: input.idempotencyKey,
      ...(input.traceparent !== undefined ? { traceparent: input.traceparent } : {}),
    };
    // Through a promise so a synchronous throw is caught like a rejection.
    Promise.resolve()
      .then(() => declaration.run(input.args, context))
      .then(
        (value) => settle({ kind: 'returned', value }),
        (error: unknown) => settle({ kind: 'threw', error }),
      );
  });
}
