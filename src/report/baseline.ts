/**
 * The baseline gate (`--baseline FILE`): a compact record of a good run (per
 * case its status, steps and tokens), and the comparison that finds
 * regressions in a new run:
 *
 * - `status`: passed in the baseline, failed now (skipped now is not a regression).
 * - `steps` / `tokens`: only for cases that passed in both runs, when the new
 *   value exceeds the baseline by more than the relative threshold (0.2 = 20 %)
 *   AND by at least an absolute minimum (1 step, 100 tokens) — so 1 → 2 steps is
 *   caught but 500 → 520 tokens of provider noise is not. Tokens are input + output.
 * - `cost`: the same for the cost at the config's prices (`prices`), relative
 *   threshold 0.2 and no absolute minimum by default (`minCost`, in the price
 *   table's currency). Compared only when both runs priced every call of the
 *   case in the same currency: a call to a model without a price, or one that
 *   reported a token count ≥ 2^53 − 1, makes the cost unknown, never zero —
 *   and never a regression.
 * - `missing`: in the baseline, not in this run (a renamed or lost case). A run
 *   that is deliberately partial passes `reportMissing` as the cases it selected
 *   (some paths, one host), or `false` when it cannot tell (`--grep`, `--shard`).
 */
import { dirname } from 'node:path';
import { z } from 'zod';
import { ensureDirectory, INPUT_LIMITS, readInputFile, unreachable, writeFileAtomic } from '../files/index.ts';
import { parseTaggedJson, ReportFileError } from './file-error.ts';
import { compareIds, failureText } from './format.ts';
import { parseResultsJson } from './json.ts';
import { formatMoney } from './cost/format-cost.ts';
import { READABLE_RESULTS_SCHEMAS, type CaseCost, type CaseStatus, type Regression, type RunResults } from './results.ts';
import { caseStatusSchema } from './results-schema.ts';

export const BASELINE_SCHEMA = 'loopgate.baseline/v1' as const;

export interface BaselineCase {
  readonly status: CaseStatus;
  /** Model steps the case took (absent when the case reported no metrics). */
  readonly steps?: number;
  /** Input + output tokens. */
  readonly tokens?: number;
  /** What the model calls cost (absent when the case had no cost, or calls to a model without a price). */
  readonly cost?: number;
  /** The currency of `cost`. */
  readonly currency?: string;
}

export interface Baseline {
  readonly schema: typeof BASELINE_SCHEMA;
  readonly tool: { readonly name: 'loopgate'; readonly version: string };
  /** The loop the run gated (`loopgate`, `ai-sdk`, `openai-agents`). Absent in baselines written before it was recorded: those are loopgate's loop. */
  readonly loop?: { readonly name: string };
  /** When the run the baseline was taken from started. */
  readonly createdAt: string;
  readonly seed: number;
  /** By case id, ids sorted. */
  readonly cases: Readonly<Record<string, BaselineCase>>;
}

export interface BaselineThresholds {
  /** Relative increase of steps allowed (default 0.2 = 20 %). */
  readonly stepsThreshold?: number;
  /** Relative increase of tokens allowed (default 0.2). */
  readonly tokensThreshold?: number;
  /** Absolute increase of steps below which nothing is reported (default 1). */
  readonly minSteps?: number;
  /** Absolute increase of tokens below which nothing is reported (default 100). */
  readonly minTokens?: number;
  /** Relative increase of cost allowed (default 0.2). */
  readonly costThreshold?: number;
  /** Absolute increase of cost, in the price table's currency, below which nothing is reported (default 0). */
  readonly minCost?: number;
  /** Report baseline cases absent from this run (default true): all, none, or those this run selected (`inScope`). */
  readonly reportMissing?: boolean | ((id: string) => boolean);
}

export const DEFAULT_THRESHOLDS: Required<BaselineThresholds> = {
  stepsThreshold: 0.2,
  tokensThreshold: 0.2,
  minSteps: 1,
  minTokens: 100,
  costThreshold: 0.2,
  minCost: 0,
  reportMissing: true,
};

const count = z.number().int().nonnegative();
const baselineSchema = z.looseObject({
  schema: z.literal(BASELINE_SCHEMA),
  tool: z.looseObject({ name: z.literal('loopgate'), version: z.string() }),
  loop: z.looseObject({ name: z.string().min(1) }).optional(),
  createdAt: z.iso.datetime({ offset: true }),
  seed: z.number().int(),
  cases: z.record(
    z.string().min(1),
    z.looseObject({
      status: caseStatusSchema,
      steps: count.optional(),
      tokens: count.optional(),
      cost: z.number().nonnegative().optional(),
      currency: z
        .string()
        .regex(/^[A-Z]{3}$/, 'a currency code such as USD')
        .optional(),
    }),
  ),
});
type ParsedBaseline = z.infer<typeof baselineSchema>;
const parsedIsBaseline = (value: ParsedBaseline): Baseline => value;
void parsedIsBaseline;

/** Every call of the case was priced: no call to a model without a price, none with a token count ≥ 2^53 − 1. */
function complete(cost: CaseCost): boolean {
  return cost.unpricedCalls === 0 && (cost.uncountedCalls ?? 0) === 0;
}

/**
 * A token sum as a baseline holds it: past 2^53 − 1 (a count the kernel already holds at 2^53 − 1, plus the other),
 * 2^53 − 1 — "at least", as the kernel reads such a count. Written as the sum, the file was one the next run refused
 * (outside probe 64, F1).
 */
function heldTokens(sum: number): number {
  return Number.isSafeInteger(sum) ? sum : Number.MAX_SAFE_INTEGER;
}

export function baselineFrom(results: RunResults): Baseline {
  const cases: Record<string, BaselineCase> = {};
  for (const c of [...results.cases].sort((a, b) => compareIds(a.id, b.id))) {
    const cost = c.metrics?.cost;
    // Only a complete cost is a baseline: with unpriced or uncounted calls the amount is a lower bound.
    const priced = cost && complete(cost) ? { cost: cost.amount, currency: cost.currency } : {};
    cases[c.id] = c.metrics
      ? { status: c.status, steps: c.metrics.steps, tokens: heldTokens(c.metrics.inputTokens + c.metrics.outputTokens), ...priced }
      : { status: c.status };
  }
  return {
    schema: BASELINE_SCHEMA,
    tool: { name: 'loopgate', version: results.tool.version },
    ...(results.loop ? { loop: { name: results.loop.name } } : {}),
    createdAt: results.startedAt,
    seed: results.seed,
    cases,
  };
}

/** The baseline file's text: one line per case so a diff of two baselines reads case by case. */
export function renderBaselineJson(baseline: Baseline): string {
  const ids = Object.keys(baseline.cases).sort(compareIds);
  const loop = baseline.loop ? `\n  "loop": ${JSON.stringify({ name: baseline.loop.name })},` : '';
  const head = `{\n  "schema": ${JSON.stringify(baseline.schema)},\n  "tool": ${JSON.stringify({ name: baseline.tool.name, version: baseline.tool.version })},${loop}\n  "createdAt": ${JSON.stringify(baseline.createdAt)},\n  "seed": ${baseline.seed},\n  "cases": {`;
  const rows = ids.map((id) => {
    const c = baseline.cases[id]!;
    const fields = {
      status: c.status,
      ...(c.steps !== undefined ? { steps: c.steps } : {}),
      ...(c.tokens !== undefined ? { tokens: c.tokens } : {}),
      ...(c.cost !== undefined ? { cost: c.cost, currency: c.currency } : {}),
    };
    return `    ${JSON.stringify(id)}: ${JSON.stringify(fields)}`;
  });
  return `${head}${rows.length ? `\n${rows.join(',\n')}\n  ` : ''}}\n}\n`;
}

export function parseBaselineJson(text: string, file: string): Baseline {
  return parseTaggedJson(text, file, BASELINE_SCHEMA, 'loopgate baseline file', baselineSchema);
}

/** Reads a baseline file, or a results.json (taken as the baseline it would give). Errors name the file and field. */
export async function readBaselineFile(path: string): Promise<Baseline> {
  const why = unreachable(path);
  if (why !== undefined) throw new ReportFileError(path, why === 'missing' ? 'no such baseline file (create one with --update-baseline)' : why);
  const text = readInputFile(path, { what: 'baseline', maxBytes: INPUT_LIMITS.baselineBytes });
  if ((READABLE_RESULTS_SCHEMAS as readonly unknown[]).includes(peekSchema(text))) return baselineFrom(parseResultsJson(text, path));
  return parseBaselineJson(text, path);
}

function peekSchema(text: string): unknown {
  try {
    return (JSON.parse(text) as { schema?: unknown } | null)?.schema;
  } catch {
    return undefined;
  }
}

/**
 * Writes the baseline of `results` to `path` (for --update-baseline), creating
 * the directory; whole or not at all. A partial run (some paths, `--grep`,
 * `--shard`, one host) passes the baseline it updates as `keep`, with the cases
 * it selected as `inScope`: the others stay as they were. Returns how many were kept.
 */
export async function writeBaselineFile(
  path: string,
  results: RunResults,
  keep?: { readonly baseline: Baseline; readonly inScope: (id: string) => boolean },
): Promise<{ kept: number }> {
  const fresh = baselineFrom(results);
  const kept = keep ? Object.entries(keep.baseline.cases).filter(([id]) => !Object.hasOwn(fresh.cases, id) && !keep.inScope(id)) : [];
  const merged: Baseline = kept.length > 0 ? { ...fresh, cases: { ...Object.fromEntries(kept), ...fresh.cases } } : fresh;
  ensureDirectory(dirname(path), 'baseline directory');
  writeFileAtomic(path, renderBaselineJson(merged), 'baseline');
  return { kept: kept.length };
}

const KIND_ORDER: Record<Regression['kind'], number> = { status: 0, steps: 1, tokens: 2, cost: 3, missing: 4 };

export function compareWithBaseline(current: RunResults, baseline: Baseline, options: BaselineThresholds = {}): Regression[] {
  const o = { ...DEFAULT_THRESHOLDS, ...definedOnly(options) };
  for (const key of ['stepsThreshold', 'tokensThreshold', 'minSteps', 'minTokens', 'costThreshold', 'minCost'] as const) {
    if (!Number.isFinite(o[key]) || o[key] < 0) throw new RangeError(`baseline ${key} must be a number ≥ 0, got ${o[key]}`);
  }
  const regressions: Regression[] = [];
  const now = new Map(current.cases.map((c) => [c.id, c]));
  for (const [id, before] of Object.entries(baseline.cases)) {
    const c = now.get(id);
    if (!c) {
      if (o.reportMissing === true || (typeof o.reportMissing === 'function' && o.reportMissing(id)))
        regressions.push({ id, kind: 'missing', message: `in the baseline (${before.status}), not in this run` });
      continue;
    }
    if (before.status === 'passed' && c.status === 'failed') {
      regressions.push({ id, kind: 'status', message: `passed in the baseline, fails now: ${failureText(c)}` });
      continue;
    }
    if (before.status !== 'passed' || c.status !== 'passed' || !c.metrics) continue;
    const worse = (kind: 'steps' | 'tokens', was: number | undefined, is: number, threshold: number, min: number, label: string) => {
      if (was === undefined || is <= was * (1 + threshold) || is - was < min) return;
      const pct = was > 0 ? `+${Math.round(((is - was) / was) * 100)}%` : 'from 0';
      regressions.push({ id, kind, message: `${label} ${was} → ${is} (${pct}; allowed: +${Math.round(threshold * 100)}% and at least +${min})` });
    };
    worse('steps', before.steps, c.metrics.steps, o.stepsThreshold, o.minSteps, 'steps');
    worse('tokens', before.tokens, c.metrics.inputTokens + c.metrics.outputTokens, o.tokensThreshold, o.minTokens, 'tokens (input + output)');
    const cost = c.metrics.cost;
    if (before.cost !== undefined && cost && complete(cost) && cost.currency === (before.currency ?? cost.currency)) {
      const was = before.cost;
      const is = cost.amount;
      if (is > was * (1 + o.costThreshold) && is - was >= o.minCost && is > was) {
        const money = (n: number) => formatMoney(n, cost.currency);
        const pct = was > 0 ? `+${Math.round(((is - was) / was) * 100)}%` : 'from 0';
        const floor = o.minCost > 0 ? ` and at least +${money(o.minCost)}` : '';
        regressions.push({ id, kind: 'cost', message: `cost ${money(was)} → ${money(is)} (${pct}; allowed: +${Math.round(o.costThreshold * 100)}%${floor})` });
      }
    }
  }
  return regressions.sort((a, b) => compareIds(a.id, b.id) || KIND_ORDER[a.kind] - KIND_ORDER[b.kind]);
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
