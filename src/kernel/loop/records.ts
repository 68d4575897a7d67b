/**
 * How the loop's facts are shaped for the log: plain, redacted data with no
 * more than the record needs. The runner decides what happened; these say how it
 * is written down.
 */
import type { EventLog } from '../log/event-log.ts';
import { assertNever, outcomeLabel, type Outcome } from '../outcome.ts';
import type { Usage } from '../model/client.ts';

type Redact = (text: string) => string;

/** An outcome with only the alphabet's fields, its texts redacted. */
export function plainOutcome(outcome: Outcome, redact: Redact): Outcome {
  switch (outcome.kind) {
    case 'failed':
      return { kind: 'failed', reason: outcome.reason, ...(outcome.detail !== undefined ? { detail: redact(outcome.detail) } : {}) };
    case 'rejected':
      return { kind: 'rejected', ...(outcome.reason !== undefined ? { reason: redact(outcome.reason) } : {}) };
    case 'cancelled':
      return { kind: 'cancelled', by: outcome.by };
    case 'replied':
    case 'nothing_to_do':
    case 'conversation_full':
    case 'interrupted':
      return { kind: outcome.kind };
    default:
      return assertNever(outcome, 'outcome');
  }
}

export { summarizeResult } from '../log/builders.ts';

/** The notice a failed turn that ran side effects leaves for the next turn. */
export function sideEffectNotice(outcome: Outcome, effects: readonly { callId: string; name: string }[], log: EventLog): string {
  const lines = effects.map((e) => sideEffectLine(e, log));
  return `[The previous turn ended with ${outcomeLabel(outcome)} and its messages were not kept, but these actions were already carried out or may have been:\n${lines.join('\n')}\nDo not repeat them without checking.]`;
}

/** One call's line in a notice: its name and id, and what its result says (done, may have taken effect, failed). */
export function sideEffectLine(e: { readonly callId: string; readonly name: string }, log: EventLog): string {
  const result = log.positions.call(e.callId)?.result;
  const status = result === undefined ? 'unknown' : ((log.at(result)?.payload as { status?: string }).status ?? 'unknown');
  return `- ${e.name} (call ${e.callId}): ${status === 'ok' ? 'done' : status === 'unknown' ? 'may have taken effect' : 'failed'}`;
}

/**
 * A token count as budgets, the close and prices read it. One past 2^53 − 1
 * (1e308, Infinity: no number holds it exactly, but it was certainly not zero)
 * is 2^53 − 1, so a token budget trips — budgets fail closed. NaN or negative
 * (what a broken client reports, not a count) counts nothing.
 */
export function countable(n: number): number {
  if (n > Number.MAX_SAFE_INTEGER) return Number.MAX_SAFE_INTEGER;
  return n > 0 ? n : 0;
}

/** `sum` plus the count `n`, held at 2^53 − 1: no record holds Infinity or an inexact count. */
export function addTokens(sum: number, n: number): number {
  return Math.min(Number.MAX_SAFE_INTEGER, sum + countable(n));
}

/** The parts of a turn's usage only some providers report: present in the close when any result reported them. */
export type UsageDetail = { -readonly [K in 'cacheReadTokens' | 'cacheWriteTokens' | 'reasoningTokens']?: number };

/** Adds a model result's cache and reasoning tokens to the turn's (crash recovery sums a turn's the same way). */
export function addUsageDetail(into: UsageDetail, usage: Usage): void {
  if (usage.cacheReadTokens !== undefined) into.cacheReadTokens = addTokens(into.cacheReadTokens ?? 0, usage.cacheReadTokens);
  if (usage.cacheWriteTokens !== undefined) into.cacheWriteTokens = addTokens(into.cacheWriteTokens ?? 0, usage.cacheWriteTokens);
  if (usage.reasoningTokens !== undefined) into.reasoningTokens = addTokens(into.reasoningTokens ?? 0, usage.reasoningTokens);
}

/** What a turn spent, as its close records it and its result reports it. */
export function turnUsage(s: { readonly inputTokens: number; readonly outputTokens: number; readonly usageDetail: UsageDetail }): Usage {
  return { inputTokens: s.inputTokens, outputTokens: s.outputTokens, ...s.usageDetail };
}

export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** A value as a problem with a team's answer names it: a number as it is (NaN, Infinity), else JSON, cut short. */
export function shown(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = typeof value === 'object' && value !== null ? '(an object that cannot be shown)' : typeof value;
  }
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
