/**
 * The zod schema of `results.json` (docs/results-schema.md). Objects are loose:
 * a field added by a newer v1 writer is kept, not rejected (the version rule).
 */
import { z } from 'zod';
import { READABLE_RESULTS_SCHEMAS, type RunResults } from './results.ts';

const count = z.number().int().nonnegative();
const millis = z.number().nonnegative();

export const caseKindSchema = z.enum(['table', 'contract', 'scenario', 'fuzz']);
export const caseStatusSchema = z.enum(['passed', 'failed', 'skipped']);

export const checkResultSchema = z.looseObject({
  name: z.string().min(1),
  passed: z.boolean(),
  message: z.string(),
  expected: z.unknown().optional(),
  actual: z.unknown().optional(),
  judge: z.looseObject({ judge: z.string(), rubric: z.string(), pass: z.boolean(), reason: z.string() }).optional(),
});

export const timelineEntrySchema = z.looseObject({
  at: millis,
  kind: z.enum([
    'inbox',
    'turn',
    'step',
    'model_call',
    'model_result',
    'retry',
    'tool_call',
    'tool_result',
    'policy',
    'compaction',
    'cancel',
    'fault',
    'outcome',
  ]),
  turn: count.optional(),
  step: count.optional(),
  label: z.string(),
  detail: z.string().optional(),
  data: z.unknown().optional(),
  durationMs: millis.optional(),
  status: z.enum(['ok', 'error', 'cancelled', 'unknown', 'undetermined']).optional(),
  request: count.optional(),
});

export const stepRequestSchema = z.looseObject({
  turn: count,
  step: count,
  attempt: count,
  seq: count.optional(),
  lines: z.array(z.string()),
});

const amount = z.number().nonnegative();
const currency = z.string().regex(/^[A-Z]{3}$/, 'a currency code such as USD');

export const caseCostSchema = z.looseObject({
  currency,
  amount,
  unpricedCalls: count,
  unpricedModels: z.array(z.string()).optional(),
  uncountedCalls: count.optional(),
  turns: z.array(z.looseObject({ turn: count, amount, unpricedCalls: count, uncountedCalls: count.optional() })),
});

export const caseMetricsSchema = z.looseObject({
  turns: count,
  steps: count,
  toolCalls: count,
  inputTokens: count,
  outputTokens: count,
  modelRequests: count,
  cost: caseCostSchema.optional(),
});

export const caseResultSchema = z.looseObject({
  id: z.string().min(1),
  kind: caseKindSchema,
  title: z.string(),
  file: z.string().optional(),
  status: caseStatusSchema,
  outcome: z.string().optional(),
  durationMs: millis,
  virtualMs: millis.optional(),
  failure: z.string().optional(),
  skipReason: z.string().optional(),
  checks: z.array(checkResultSchema),
  metrics: caseMetricsSchema.optional(),
  timeline: z.array(timelineEntrySchema).optional(),
  requests: z.array(stepRequestSchema).optional(),
  tags: z.array(z.string()).optional(),
  repeats: z.looseObject({ runs: count, passed: count, threshold: z.number().min(0).max(1) }).optional(),
});

const kindSummarySchema = z.looseObject({ total: count, passed: count, failed: count, skipped: count });

export const regressionSchema = z.looseObject({
  id: z.string().min(1),
  kind: z.enum(['status', 'steps', 'tokens', 'cost', 'missing']),
  message: z.string(),
});

export const runResultsSchema = z.looseObject({
  // A v1 file is read as v2 (v2 only added values to closed sets); the reader returns it tagged v2.
  schema: z.enum(READABLE_RESULTS_SCHEMAS).transform(() => 'loopgate.results/v2' as const),
  tool: z.looseObject({ name: z.literal('loopgate'), version: z.string() }),
  loop: z.looseObject({ name: z.string().min(1), version: z.string() }).optional(),
  startedAt: z.iso.datetime({ offset: true }),
  finishedAt: z.iso.datetime({ offset: true }),
  durationMs: millis,
  seed: z.number().int(),
  shard: z
    .looseObject({ index: z.number().int().positive(), total: z.number().int().positive() })
    .refine((s) => s.index <= s.total, 'shard index must be between 1 and total')
    .optional(),
  suite: z
    .looseObject({
      config: z.string(),
      cases: z.number().int().nonnegative(),
      digest: z.string().regex(/^[0-9a-f]{16}$/),
      commit: z.string().min(1).max(200).optional(),
    })
    .optional(),
  fuzz: z
    .looseObject({ agent: z.string(), tools: z.array(z.string()), withoutArgs: z.array(z.string()).optional(), notFuzzed: z.string().optional() })
    .optional(),
  summary: kindSummarySchema.extend({
    byKind: z.looseObject({ table: kindSummarySchema, contract: kindSummarySchema, scenario: kindSummarySchema, fuzz: kindSummarySchema }),
    cost: z
      .looseObject({ currency, amount, unpricedCalls: count, unpricedModels: z.array(z.string()).optional(), uncountedCalls: count.optional(), cases: count })
      .optional(),
  }),
  cases: z.array(caseResultSchema),
  regressions: z.array(regressionSchema).optional(),
  verdicts: z
    .looseObject({
      file: z.string(),
      differences: z.array(
        z.looseObject({
          id: z.string().min(1),
          kind: z.enum(['newly fails', 'newly passes', 'status', 'judged differently', 'not run', 'not pinned']),
          message: z.string(),
        }),
      ),
    })
    .optional(),
});

// The schema and the TypeScript model must not drift apart: this fails to compile if they do.
type Parsed = z.infer<typeof runResultsSchema>;
const parsedIsRunResults = (value: Parsed): RunResults => value;
void parsedIsRunResults;
