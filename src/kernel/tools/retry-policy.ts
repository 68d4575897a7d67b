/**
 * Retry follows the side-effect level, not a retry count (seed 003 §2.4): a weather
 * lookup retried three times costs three requests; a payment retried three times
 * charges three times.
 * - NONE: failures, throws and timeouts retry up to maxRetries.
 * - IDEMPOTENT: the same, always with the same idempotency key.
 * - STATEFUL, CRITICAL: never retried automatically (invariant 13).
 * An abort never retries, and a ToolFailure retries only when it says it may.
 */
import type { AttemptOutcome } from './run-attempt.ts';
import { ToolFailure, type AnyToolDeclaration, type SideEffect } from './types.ts';

export const DEFAULT_MAX_RETRIES = 2;

export function isRetriable(sideEffect: SideEffect): boolean {
  return sideEffect === 'NONE' || sideEffect === 'IDEMPOTENT';
}

/** Executions allowed for one call, the first included. */
export function maxAttempts(declaration: AnyToolDeclaration, defaultMaxRetries: number): number {
  if (!isRetriable(declaration.sideEffect)) return 1;
  return 1 + (declaration.maxRetries ?? defaultMaxRetries);
}

/** Does this outcome call for another attempt (if the budget allows)? */
export function wantsRetry(outcome: AttemptOutcome, sideEffect: SideEffect): boolean {
  if (!isRetriable(sideEffect)) return false;
  switch (outcome.kind) {
    case 'returned':
    case 'aborted':
      return false;
    case 'timeout':
      return true;
    case 'threw':
      return asToolFailure(outcome.error)?.retryable ?? true;
  }
}

/** A ToolFailure, also when it crossed a module boundary as a look-alike. */
export function asToolFailure(error: unknown): ToolFailure | undefined {
  if (error instanceof ToolFailure) return error;
  if (error instanceof Error && error.name === 'ToolFailure' && typeof (error as Partial<ToolFailure>).code === 'string') {
    const e = error as Partial<ToolFailure>;
    return new ToolFailure(e.code!, error.message, { suggestion: e.suggestion ?? '', retryable: e.retryable === true });
  }
  return undefined;
}
