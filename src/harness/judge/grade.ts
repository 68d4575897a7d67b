/**
 * Grading a reply against a rubric with a judge model: one request — the
 * rubric, the conversation for context, the reply — asking for a verdict as
 * JSON, `{"pass": true|false, "reason": "…"}`. Everything sent is redacted with
 * the case's secrets first; the reason that comes back is redacted again before
 * it reaches a report. A judge that errs or answers without a verdict does not
 * pass the reply: the check fails saying why.
 */
import type { ModelClient, ModelRequest } from '../../kernel/index.ts';

export const JUDGE_SYSTEM = [
  "You grade an AI assistant's reply against a rubric.",
  'Judge only what the rubric asks. Answer with one JSON object and nothing else:',
  '{"pass": true or false, "reason": "one or two sentences saying why"}',
].join('\n');

export interface GradeInput {
  readonly rubric: string;
  /** The conversation before the reply, one message per line (already redacted). */
  readonly history: readonly string[];
  /** The reply to grade (already redacted). */
  readonly reply: string;
}

export type Grade = { readonly pass: boolean; readonly reason: string } | { readonly error: string };

export function judgePrompt(input: GradeInput): string {
  return [`Rubric:\n${input.rubric}`, `Conversation so far:\n${input.history.join('\n') || '(none)'}`, `Reply to grade:\n${input.reply}`].join('\n\n');
}

export async function grade(judge: ModelClient, model: string, input: GradeInput, timeoutMs = 120_000): Promise<Grade> {
  const request: ModelRequest = {
    model,
    system: JUDGE_SYSTEM,
    messages: [{ role: 'user', content: [{ type: 'text', text: judgePrompt(input) }] }],
    tools: [],
    maxTokens: 1024,
    temperature: 0,
    timeoutMs,
    signal: AbortSignal.timeout(timeoutMs + 5_000),
  };
  let result;
  try {
    result = await judge.call(request);
  } catch (error) {
    return { error: `the judge's client threw: ${(error as Error)?.message ?? String(error)}` };
  }
  if (result.type === 'transport_error') return { error: `the judge's call failed: ${result.kind}: ${result.message}` };
  if (result.type !== 'reply') return { error: `the judge answered with ${result.type}, not a verdict` };
  return parseVerdict(result.text);
}

/** The verdict in a judge's answer: the JSON object it sent (alone, or the first one in its text). */
export function parseVerdict(text: string): Grade {
  const candidates = [text.trim(), /\{[\s\S]*\}/.exec(text)?.[0]].filter((t): t is string => typeof t === 'string');
  for (const candidate of candidates) {
    let value: unknown;
    try {
      value = JSON.parse(candidate);
    } catch {
      continue;
    }
    const v = value as { pass?: unknown; reason?: unknown } | null;
    if (v && typeof v === 'object' && typeof v.pass === 'boolean' && typeof v.reason === 'string' && v.reason.trim() !== '')
      return { pass: v.pass, reason: v.reason.trim() };
  }
  const shown = text.length > 300 ? `${text.slice(0, 299)}…` : text;
  return { error: `the judge's answer is not a verdict {"pass": boolean, "reason": string}: ${JSON.stringify(shown)}` };
}
