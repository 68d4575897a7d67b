/**
 * `expect.assert`: assertions on the last turn's reply, beyond `reply` (exact
 * text, contains). Each entry is one of
 *
 *   - matches: '^Refund of \d+ EUR'       a regular expression (JavaScript), with optional flags
 *   - json: { type: object, required: [status] }   the reply parses as JSON valid against this JSON Schema
 *   - assertion: mentions-order            a predicate of loopgate.config.ts `assertions`, by name
 *   - rubric: The reply apologizes …       graded by a judge model: a judge of the config, by name
 *     judge: strict                        (default: the config's only or default judge), or a script:
 *     judge: { script: [{ pass: true, reason: … }] }
 *
 * Regular expressions and JSON Schemas are compiled here, as the file loads: a
 * bad one is a file error naming its line. Names of assertions and judges are
 * checked against the config before anything runs (check-reply-assertions.ts).
 */
import { z } from 'zod';
import { compileJsonSchema } from '../checks/json-schema.ts';

export const ASSERTION_KINDS = ['matches', 'json', 'assertion', 'rubric'] as const;
const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** One answer of a scripted judge: a verdict (sent as the JSON a judge answers with), or the raw text it replies. */
export const judgeAnswerSchema = z.union([
  z.strictObject({ pass: z.boolean(), reason: z.string().min(1) }),
  z.strictObject({ reply: z.string().describe('The judge answers with this text (to script a judge that answers badly)') }),
]);
export type JudgeAnswer = z.infer<typeof judgeAnswerSchema>;

export const scriptedJudgeSchema = z.strictObject({
  script: z.array(judgeAnswerSchema).min(1).describe('One answer per rubric graded; the last repeats'),
});

export const replyAssertionSchema = z
  .strictObject({
    matches: z.string().optional().describe('A regular expression (JavaScript syntax) some part of the reply matches'),
    flags: z
      .string()
      .regex(/^(?!.*(.).*\1)[imsuv]*$/, 'regular expression flags: any of i, m, s, u, v, each once')
      .optional()
      .describe('For matches'),
    json: z
      .union([z.boolean(), z.record(z.string(), z.unknown())])
      .optional()
      .describe('The reply parses as JSON and is valid against this JSON Schema (draft 2020-12)'),
    assertion: z.string().regex(NAME, 'an assertion name: letters, digits, _ . or -').optional().describe('A predicate of loopgate.config.ts `assertions`'),
    rubric: z.string().min(1).optional().describe('What a good reply does, graded by a judge model'),
    judge: z
      .union([z.string().regex(NAME, 'a judge name: letters, digits, _ . or -'), scriptedJudgeSchema])
      .optional()
      .describe("For rubric: a judge of the config by name (default: the config's default judge), or a scripted judge"),
  })
  .superRefine((a, ctx) => {
    const kinds = ASSERTION_KINDS.filter((k) => a[k] !== undefined);
    if (kinds.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: `an assertion needs exactly one of ${ASSERTION_KINDS.join(', ')} (got ${kinds.length ? kinds.join(', ') : 'none'})`,
      });
      return;
    }
    if (a.flags !== undefined && a.matches === undefined) ctx.addIssue({ code: 'custom', path: ['flags'], message: 'flags go with matches' });
    if (a.judge !== undefined && a.rubric === undefined) ctx.addIssue({ code: 'custom', path: ['judge'], message: 'judge goes with rubric' });
    if (a.matches !== undefined) {
      try {
        new RegExp(a.matches, a.flags);
      } catch (error) {
        ctx.addIssue({ code: 'custom', path: ['matches'], message: `not a regular expression: ${(error as Error).message}` });
      }
    }
    if (a.json !== undefined) {
      const compiled = compileJsonSchema(a.json);
      if (compiled instanceof Error) ctx.addIssue({ code: 'custom', path: ['json'], message: compiled.message });
    }
  });
export type ReplyAssertion = z.infer<typeof replyAssertionSchema>;

export const replyAssertionsSchema = z.array(replyAssertionSchema).min(1).describe("Assertions on the last turn's reply, each checked and reported on its own");
