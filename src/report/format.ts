/** Small formatting and selection helpers shared by the reporters. */
import { jsonSafe } from './json-safe.ts';
import type { CaseKind, CaseResult, CheckResult, RunResults, StepRequest, TimelineEntry } from './results.ts';

export const CASE_KINDS: readonly CaseKind[] = ['table', 'contract', 'scenario', 'fuzz'];

/** `12 ms`, `1.50 s`, `2 min 05 s`: short and unambiguous. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes} min ${String(seconds).padStart(2, '0')} s`;
}

export function failingChecks(c: CaseResult): CheckResult[] {
  return c.checks.filter((check) => !check.passed);
}

/** The message a one-line reporter shows for a failed case. */
export function failureText(c: CaseResult): string {
  if (c.failure) return c.failure;
  const first = c.checks.find((check) => !check.passed);
  return first ? `${first.name}: ${first.message}` : '(no failure message)';
}

/** Code-unit order: the same on every machine and locale. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Failed first, then skipped, then passed; by id within each. */
export function casesForReading(results: RunResults): CaseResult[] {
  const rank = { failed: 0, skipped: 1, passed: 2 } as const;
  return [...results.cases].sort((a, b) => rank[a.status] - rank[b.status] || compareIds(a.id, b.id));
}

/** One line, at most `max` characters (for table cells and attributes). */
export function oneLine(text: string, max = Infinity): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, Math.max(0, max - 1))}…` : flat;
}

/** A value for people: strings as they are, anything else as compact JSON. */
export function showValue(value: unknown, indent?: number): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return 'undefined';
  return JSON.stringify(jsonSafe(value), null, indent) ?? String(value);
}

/** A timeline entry as one line of text: `+2.015 s  T1·S1  model_call  model call #2 (110 ms) [ok] — detail`. */
export function timelineLine(entry: TimelineEntry): string {
  const at = `+${(entry.at / 1000).toFixed(3)} s`;
  const where = entry.turn !== undefined ? `T${entry.turn}${entry.step !== undefined ? `·S${entry.step}` : ''}` : '';
  const duration = entry.durationMs !== undefined ? ` (${formatDuration(entry.durationMs)})` : '';
  const status = entry.status ? ` [${entry.status}]` : '';
  const detail = entry.detail ? ` — ${oneLine(entry.detail, 200)}` : '';
  return `${at.padStart(10)}  ${where.padEnd(6)}  ${entry.kind.padEnd(12)}  ${oneLine(entry.label, 200)}${duration}${status}${detail}`;
}

/** A failed case's failing step: the last request the model saw before the case ended. */
export function failingRequest(c: CaseResult): StepRequest | undefined {
  return c.status === 'failed' ? c.requests?.[c.requests.length - 1] : undefined;
}

/** `turn 0, step 2` (`(attempt 2)` for a retry). */
export function stepName(request: StepRequest): string {
  return `turn ${request.turn}, step ${request.step}${request.attempt > 1 ? ` (attempt ${request.attempt})` : ''}`;
}
