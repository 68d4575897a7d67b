/**
 * The closed outcome alphabet (DESIGN.md). Every opened turn closes exactly once
 * with one of these. Adding a reason is a compile error wherever `assertNever`
 * guards a switch over outcomes or reasons.
 */

export const CANCEL_SOURCES = ['user', 'parent', 'shutdown'] as const;
export type CancelSource = (typeof CANCEL_SOURCES)[number];

export const FAILURE_REASONS = [
  'max_steps',
  'budget_exhausted',
  'refusal',
  'max_tokens',
  'unknown_stop_reason',
  'empty_reply',
  'provider_unavailable',
  'rate_limited',
  'auth',
  'invalid_request',
  'persistence',
  'internal',
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

export type Outcome =
  | { readonly kind: 'replied' }
  | { readonly kind: 'cancelled'; readonly by: CancelSource }
  | { readonly kind: 'rejected'; readonly reason?: string }
  | { readonly kind: 'nothing_to_do' }
  | { readonly kind: 'conversation_full' }
  /**
   * The turn was left open in the store and closed by recovery when the
   * conversation was reopened: the process died (no `cause`), or — `cause: 'store'`
   * — the host dropped the log after the store refused a write, so what the
   * store holds was all it could keep. Not in the brief's starting alphabet: a
   * crash is neither a cancel nor a failure of the model, and recovery needs a
   * name for it.
   */
  | { readonly kind: 'interrupted'; readonly cause?: InterruptionCause }
  | { readonly kind: 'failed'; readonly reason: FailureReason; readonly detail?: string };

export type OutcomeKind = Outcome['kind'];

/** Why a turn was left open for recovery, when it was not a crash. */
export type InterruptionCause = 'store';

/** How a turn left open for recovery is told: `the process stopped`, or why else it was cut short. */
export function interruptionText(cause: InterruptionCause | undefined): string {
  return cause === 'store' ? 'the store refused a write' : 'the process stopped';
}

export const OUTCOME_KINDS: readonly OutcomeKind[] = ['replied', 'cancelled', 'rejected', 'nothing_to_do', 'conversation_full', 'interrupted', 'failed'];

export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unhandled ${what}: ${JSON.stringify(value)}`);
}

/** A short stable label, e.g. `failed{max_steps}` or `cancelled{user}`. */
export function outcomeLabel(outcome: Outcome): string {
  switch (outcome.kind) {
    case 'replied':
    case 'rejected':
    case 'nothing_to_do':
    case 'conversation_full':
    case 'interrupted':
      return outcome.kind;
    case 'cancelled':
      return `cancelled{${outcome.by}}`;
    case 'failed':
      return `failed{${outcome.reason}}`;
    default:
      return assertNever(outcome, 'outcome');
  }
}

/**
 * Which closed turns keep their messages in the projection. Failures are atomic
 * (seed 004 rule 4): they add nothing. A cancelled or interrupted turn keeps the
 * steps the model completed, with every open tool call closed as `unknown`, so the
 * model learns what already happened and does not repeat side effects.
 */
export function keepsCompletedSteps(outcome: Outcome): boolean {
  switch (outcome.kind) {
    case 'replied':
    case 'cancelled':
    case 'interrupted':
      return true;
    case 'rejected':
    case 'nothing_to_do':
    case 'conversation_full':
    case 'failed':
      return false;
    default:
      return assertNever(outcome, 'outcome');
  }
}

/** Is `value` an outcome of the alphabet, with text where the alphabet has text? */
export function isOutcome(value: unknown): value is Outcome {
  return outcomeProblem(value) === undefined;
}

/**
 * What keeps `value` out of the alphabet (as the log's catalogue reads a close),
 * or undefined when it is an outcome: for an outcome a team's code hands the loop
 * (an error handler's `fail`), which no type holds when written in JavaScript or cast.
 */
export function outcomeProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${shown(value)} is not an object`;
  const o = value as { kind?: unknown; by?: unknown; reason?: unknown; detail?: unknown; cause?: unknown };
  switch (o.kind) {
    case 'replied':
    case 'nothing_to_do':
    case 'conversation_full':
      return undefined;
    case 'rejected':
      return o.reason === undefined || typeof o.reason === 'string' ? undefined : `the reason ${shown(o.reason)} is not text`;
    case 'interrupted':
      return o.cause === undefined || o.cause === 'store' ? undefined : `${shown(o.cause)} is not an interruption cause`;
    case 'cancelled':
      return (CANCEL_SOURCES as readonly unknown[]).includes(o.by) ? undefined : `${shown(o.by)} is not a cancel source`;
    case 'failed':
      if (o.reason === undefined) return 'a failed outcome has no reason';
      if (!(FAILURE_REASONS as readonly unknown[]).includes(o.reason)) return `${shown(o.reason)} is not a failure reason`;
      return o.detail === undefined || typeof o.detail === 'string' ? undefined : `the detail ${shown(o.detail)} is not text`;
    default:
      return `kind ${shown(o.kind)} is not an outcome kind`;
  }
}

/** A value as a problem names it: JSON, cut short. */
function shown(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
