/** A runtime check that a value is a well-formed `ModelResult` (the contract's shape). */
import { z } from 'zod';
import { TRANSPORT_ERROR_KINDS } from '../../src/kernel/index.ts';

const usage = z
  .object({
    inputTokens: z.number().int().nonnegative(),
    outputTokens: z.number().int().nonnegative(),
    cacheReadTokens: z.number().int().nonnegative().optional(),
    cacheWriteTokens: z.number().int().nonnegative().optional(),
    reasoningTokens: z.number().int().nonnegative().optional(),
  })
  .strict();

const block = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }).strict(),
  z.object({ type: z.literal('tool_call'), id: z.string(), name: z.string(), args: z.unknown() }).strict(),
]);

const base = { usage: usage.optional(), stopReason: z.string().optional() };
const content = z.array(block);

export const modelResultSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('reply'), content, text: z.string(), ...base }).strict(),
  z
    .object({
      type: z.literal('tool_use'),
      content,
      text: z.string(),
      calls: z.array(z.object({ id: z.string(), name: z.string(), args: z.unknown(), rawArgs: z.string().optional() }).strict()).min(1),
      ...base,
    })
    .strict(),
  z.object({ type: z.literal('max_tokens'), content, text: z.string(), partialToolCall: z.boolean(), ...base }).strict(),
  z.object({ type: z.literal('refusal'), text: z.string(), details: z.unknown().optional(), ...base }).strict(),
  z
    .object({
      type: z.literal('context_window_exceeded'),
      at: z.enum(['request', 'generation']),
      content,
      message: z.string(),
      ...base,
    })
    .strict(),
  z.object({ type: z.literal('unknown'), stopReason: z.string(), content, text: z.string(), usage: usage.optional() }).strict(),
  z
    .object({
      type: z.literal('transport_error'),
      kind: z.enum(TRANSPORT_ERROR_KINDS),
      message: z.string(),
      status: z.number().int().optional(),
      retryAfterMs: z.number().nonnegative().optional(),
      ...base,
    })
    .strict(),
]);

/**
 * Problems with a result's shape, one line each; empty when it is well-formed.
 * An optional field is left out, never present with the value `undefined`: such a
 * key is still listed by `Object.keys`, `in` and a logger's print of the result,
 * and it does not survive a JSON round trip (a recorded or replayed result would
 * differ from the live one).
 */
export function resultProblems(value: unknown): string[] {
  const parsed = modelResultSchema.safeParse(value);
  const problems = parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.') || '(result)'}: ${issue.message}`);
  return [...problems, ...undefinedFields(value, '')];
}

function undefinedFields(value: unknown, at: string): string[] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => {
    const path = at === '' ? key : `${at}.${key}`;
    return item === undefined ? [`${path}: present but undefined (leave an optional field out)`] : undefinedFields(item, path);
  });
}
