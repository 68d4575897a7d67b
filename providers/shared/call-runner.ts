/**
 * The frame every adapter call runs in. It owns the three guarantees of the
 * contract that do not depend on the provider:
 *
 * - it never rejects: anything thrown becomes a result through `classify`;
 * - it settles once, and no delta reaches the listener after it settled;
 * - the client's own credential reaches neither a delta nor the result, even
 *   quoted by the provider, split across deltas or encoded;
 * - the caller's abort signal and `timeoutMs` end the call even when the SDK is
 *   stuck reading a stalled body (the SDKs' own timeout only covers the wait for
 *   response headers, and they end a stream silently when it is aborted).
 */
import type { ModelDelta, ModelRequest, ModelResult, Usage } from '../../src/kernel/index.ts';
import { credentialDeltas, withoutCredentials } from './credentials.ts';
import { transportFailure } from './results.ts';

export type CallPhase = 'request' | 'stream';

export interface CallContext {
  /** Pass to the SDK: aborted on the caller's abort and on the deadline. */
  readonly signal: AbortSignal;
  /** Streams a delta to the listener; dropped after settlement; listener errors are swallowed. */
  emit(delta: ModelDelta): void;
  /** Where the call is: before the response arrived, or reading its stream. */
  phase: CallPhase;
  /**
   * Usage the provider reported so far (e.g. in message_start), kept on a result
   * that ends the call early: those tokens were spent.
   */
  usageSoFar?: () => Usage | undefined;
}

export interface Interruption {
  readonly kind: 'aborted' | 'timeout';
  readonly message: string;
}

/** The reason carried by the internal abort, so a caught error can be told apart. */
export class CallInterrupted extends Error {
  readonly interruption: Interruption;
  constructor(interruption: Interruption) {
    super(interruption.message);
    this.name = 'CallInterrupted';
    this.interruption = interruption;
  }
}

/** Calls `fire` once `ms` have passed unless cancelled (a kernel `Clock`'s `setTimer` fits). */
export type DeadlineTimer = (ms: number, fire: () => void) => { cancel(): void };

const systemTimer: DeadlineTimer = (ms, fire) => {
  const timer = setTimeout(fire, ms);
  return { cancel: () => clearTimeout(timer) };
};

/** The deadline on the given timer; one that throws (a caller's own) falls back to the system's: a call never rejects. */
function deadline(setTimer: DeadlineTimer, ms: number, fire: () => void): { cancel(): void } {
  try {
    return setTimer(ms, fire);
  } catch {
    return systemTimer(ms, fire);
  }
}

export async function runModelCall(
  request: ModelRequest,
  onDelta: ((delta: ModelDelta) => void) | undefined,
  execute: (ctx: CallContext) => Promise<ModelResult>,
  classify: (error: unknown, ctx: CallContext) => ModelResult,
  /** The client's own credentials (its API key): kept out of the result, wherever the provider quoted them. */
  credentials: readonly string[] = [],
  /** The timer the deadline runs on: the system's, or a test host's virtual clock. */
  setTimer: DeadlineTimer = systemTimer,
): Promise<ModelResult> {
  if (request.signal?.aborted) return transportFailure('aborted', 'aborted before the request was sent');

  const controller = new AbortController();
  let settled = false;
  let interruption: Interruption | undefined;
  let rejectInterrupted: (error: CallInterrupted) => void = () => {};
  const interrupted = new Promise<never>((_, reject) => {
    rejectInterrupted = reject;
  });
  interrupted.catch(() => {});

  const interrupt = (next: Interruption) => {
    if (settled || interruption) return;
    interruption = next;
    const error = new CallInterrupted(next);
    rejectInterrupted(error);
    controller.abort(error);
  };
  const onAbort = () => interrupt({ kind: 'aborted', message: 'the caller aborted the call' });
  request.signal?.addEventListener('abort', onAbort, { once: true });
  const timeoutMs = request.timeoutMs;
  const timer =
    timeoutMs !== undefined
      ? deadline(setTimer, Math.max(0, timeoutMs), () => interrupt({ kind: 'timeout', message: `no complete response within ${timeoutMs} ms` }))
      : undefined;

  const deliver = (delta: ModelDelta) => {
    try {
      onDelta?.(delta);
    } catch {
      // A throwing listener is the caller's bug; the call itself goes on.
    }
  };
  // A reply may quote the key (split across deltas, encoded): each stream is held back only where a key may begin.
  const scrubbed = onDelta ? credentialDeltas(credentials) : undefined;
  const ctx: CallContext = {
    signal: controller.signal,
    phase: 'request',
    emit(delta) {
      if (settled || interruption || !onDelta) return;
      if (scrubbed) for (const out of scrubbed.push(delta)) deliver(out);
      else deliver(delta);
    },
  };

  let result: ModelResult;
  try {
    const running = execute(ctx);
    // If the deadline wins the race, the SDK call is aborted and left to unwind on its own.
    running.catch(() => {});
    result = await Promise.race([running, interrupted]);
  } catch (error) {
    result = interruption ? fromInterruption(interruption) : safeClassify(classify, error, ctx);
  } finally {
    timer?.cancel();
    request.signal?.removeEventListener('abort', onAbort);
  }
  // An interruption that landed before settlement wins: the SDKs end an aborted
  // stream quietly, which would otherwise look like a short but complete one.
  if (interruption) result = fromInterruption(interruption);
  else if (scrubbed) for (const out of scrubbed.end()) deliver(out);
  settled = true;
  if (result.usage === undefined && result.type === 'transport_error') {
    const usage = ctx.usageSoFar?.();
    if (usage) result = { ...result, usage };
  }
  return withoutCredentials(result, credentials);
}

function fromInterruption(interruption: Interruption): ModelResult {
  return transportFailure(interruption.kind, interruption.message);
}

function safeClassify(classify: (error: unknown, ctx: CallContext) => ModelResult, error: unknown, ctx: CallContext): ModelResult {
  try {
    return classify(error, ctx);
  } catch (classifyError) {
    return transportFailure('network', `unclassifiable error: ${describeError(error)} (${describeError(classifyError)})`);
  }
}

/** How deep describeError follows `cause`: the SDK's error, the fetch's, the socket's, and a little more. */
const CAUSE_DEPTH = 5;

/**
 * What was thrown, in words: its message, then each cause's below it that
 * says something new (an SDK wraps the fetch's error, which wraps the
 * socket's: "Connection error.: terminated: other side closed"; SDK releases
 * differ in how many layers they add). Never throws itself: a value may have
 * no text form (an object with no prototype, whose String() throws) or refuse
 * `instanceof` (a Proxy whose getPrototypeOf trap throws), and the call must
 * still settle with a result that says something.
 */
export function describeError(error: unknown): string {
  try {
    if (!(error instanceof Error)) return String(error);
    let text = error.message;
    const seen = new Set<unknown>([error]);
    let cause = (error as { cause?: unknown }).cause;
    for (let depth = 0; depth < CAUSE_DEPTH && cause instanceof Error && !seen.has(cause); depth++) {
      seen.add(cause);
      if (cause.message && !text.includes(cause.message)) text = `${text}: ${cause.message}`;
      cause = (cause as { cause?: unknown }).cause;
    }
    return text;
  } catch {
    return 'a thrown value with no text form';
  }
}
