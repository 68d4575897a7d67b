/**
 * What `loopgate contract` and `loopgate decode` print for a result must say
 * what the adapter returned: its type, how it ended, its text, its calls and
 * usage. Read field by field from the result itself, not through the printer.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ModelResult } from '../../src/kernel/index.ts';
import type { ResultSummary } from '../shared/summary.ts';

const SCALARS = ['type', 'at', 'kind', 'status', 'retryAfterMs', 'message', 'stopReason', 'partialToolCall'] as const;

/** The fields the summary gets wrong (empty when it agrees with the result). */
export function summaryDisagreements(result: ModelResult, summary: ResultSummary): string[] {
  const r = result as unknown as Record<string, unknown>;
  const s = summary as unknown as Record<string, unknown>;
  const wrong: string[] = SCALARS.filter((key) => r[key] !== undefined && s[key] !== r[key]);
  if (!isDeepStrictEqual(r.usage, s.usage)) wrong.push('usage');
  if (!isDeepStrictEqual(r.details ?? undefined, s.details)) wrong.push('details');
  const text = typeof r.text === 'string' ? r.text : result.type === 'context_window_exceeded' ? textOf(result.content) : undefined;
  if (s.text !== text) wrong.push('text');
  if (result.type === 'tool_use') {
    const calls = result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args }));
    if (!isDeepStrictEqual(calls, s.calls)) wrong.push('calls');
  }
  return wrong;
}

function textOf(content: readonly { readonly type: string; readonly text?: string }[]): string {
  let text = '';
  for (const block of content) if (block.type === 'text' && block.text !== undefined) text += block.text;
  return text;
}
