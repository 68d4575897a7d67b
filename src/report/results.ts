/**
 * The results of a run: what every reporter renders and what `results.json`
 * holds. Versioned: a change that old readers cannot read bumps `schema`.
 * Documented in docs/results-schema.md.
 */
import { createHash } from 'node:crypto';

export const RESULTS_SCHEMA = 'loopgate.results/v2' as const;
/** The versions this loopgate reads: v2 added values to closed sets (the `cost` regression); a v1 file is a valid v2 file. */
export const READABLE_RESULTS_SCHEMAS = ['loopgate.results/v1', RESULTS_SCHEMA] as const;

export type CaseKind = 'table' | 'contract' | 'scenario' | 'fuzz';
export type CaseStatus = 'passed' | 'failed' | 'skipped';

/** One check made on a case: the three ways (outcome, history, trace) and the invariants. */
export interface CheckResult {
  /** e.g. `outcome`, `history`, `trace`, `tool calls`, or an invariant's id (`invariant-06-tool-pairing`). */
  readonly name: string;
  readonly passed: boolean;
  /** Why it failed (or what it verified). */
  readonly message: string;
  readonly expected?: unknown;
  readonly actual?: unknown;
  /** A check graded by a judge model (a `rubric` assertion): who judged, and why. */
  readonly judge?: JudgeVerdict;
}

/** What a judge model said about a reply. */
export interface JudgeVerdict {
  /** The judge's name in the config (or `scripted` for a scenario's own script). */
  readonly judge: string;
  readonly rubric: string;
  readonly pass: boolean;
  /** The judge's reason, redacted with the case's secrets. */
  readonly reason: string;
}

/** One line of a case's timeline, for people (the HTML report draws these). */
export interface TimelineEntry {
  /** Virtual milliseconds since the case started. */
  readonly at: number;
  readonly kind:
    | 'inbox'
    | 'turn'
    | 'step'
    | 'model_call'
    | 'model_result'
    | 'retry'
    | 'tool_call'
    | 'tool_result'
    | 'policy'
    | 'compaction'
    | 'cancel'
    | 'fault'
    | 'outcome';
  readonly turn?: number;
  readonly step?: number;
  readonly label: string;
  readonly detail?: string;
  /** Tool arguments, results and the like (already redacted). */
  readonly data?: unknown;
  /** Virtual duration, when the entry spans time (model calls, tool calls). */
  readonly durationMs?: number;
  readonly status?: 'ok' | 'error' | 'cancelled' | 'unknown' | 'undetermined';
  /** Model calls: the index in the case's `requests` of the request the model saw. */
  readonly request?: number;
}

/**
 * What the model saw at one step: the request as sent, in short lines (redacted,
 * each cut at a few hundred characters): `model: …`, `system: …`, `tools: …`,
 * then one line per message as scenario expectations match them — `user: …`,
 * `assistant: … | call name#id {args}`, `user: result#id status: … | more text`.
 */
export interface StepRequest {
  readonly turn: number;
  readonly step: number;
  readonly attempt: number;
  /** Seq of its `model.request` event in the case's log; none for a loop behind the port (it keeps no event log). */
  readonly seq?: number;
  readonly lines: readonly string[];
}

export interface CaseMetrics {
  readonly turns: number;
  readonly steps: number;
  readonly toolCalls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly modelRequests: number;
  /** What the model calls cost, when the config has a price table. */
  readonly cost?: CaseCost;
}

/** What a case's model calls cost at the config's prices (`prices` in loopgate.config.ts). */
export interface CaseCost {
  /** The price table's currency (ISO 4217, e.g. USD). */
  readonly currency: string;
  /** The sum over the calls whose model has a price. */
  readonly amount: number;
  /** Calls that reported usage for a model the table has no price for: their cost is unknown, and not in `amount`. */
  readonly unpricedCalls: number;
  /** Those models, sorted. */
  readonly unpricedModels?: readonly string[];
  /** Calls whose usage held a token count ≥ 2^53 − 1 (or not finite): their cost is unknown, and not in `amount` (present when > 0). */
  readonly uncountedCalls?: number;
  /** Per turn, in turn order. */
  readonly turns: readonly TurnCost[];
}

export interface TurnCost {
  readonly turn: number;
  readonly amount: number;
  readonly unpricedCalls: number;
  readonly uncountedCalls?: number;
}

/** The cost of the cases that have one, summed (present when every such case uses one currency). */
export interface SuiteCost {
  readonly currency: string;
  readonly amount: number;
  readonly unpricedCalls: number;
  readonly unpricedModels?: readonly string[];
  /** Calls with a token count ≥ 2^53 − 1, over all cases (present when > 0). */
  readonly uncountedCalls?: number;
  /** Cases with a cost. */
  readonly cases: number;
}

export interface CaseResult {
  /** Stable id: `<kind>:<path>`, e.g. `scenario:refunds/approval-granted`, `table:tool_use@MODEL`, `contract:anthropic/reply`. */
  readonly id: string;
  readonly kind: CaseKind;
  readonly title: string;
  /** Source file, when the case came from one. */
  readonly file?: string;
  readonly status: CaseStatus;
  /** The last turn's outcome label, e.g. `replied`, `failed{max_steps}`. */
  readonly outcome?: string;
  /** Real wall-clock milliseconds the case took. */
  readonly durationMs: number;
  /** Virtual milliseconds that passed in the case's world. */
  readonly virtualMs?: number;
  /** The first failing check's message (for one-line reporters). */
  readonly failure?: string;
  readonly skipReason?: string;
  readonly checks: readonly CheckResult[];
  readonly metrics?: CaseMetrics;
  readonly timeline?: readonly TimelineEntry[];
  /** Every model request of the case, in order (the last: what the model saw at the step where the case ended). */
  readonly requests?: readonly StepRequest[];
  readonly tags?: readonly string[];
  /** For live runs: how many of the repeats passed. */
  readonly repeats?: { readonly runs: number; readonly passed: number; readonly threshold: number };
}

export interface KindSummary {
  readonly total: number;
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
}

export interface RunSummary extends KindSummary {
  readonly byKind: Readonly<Record<CaseKind, KindSummary>>;
  readonly cost?: SuiteCost;
}

export interface Regression {
  readonly id: string;
  /** `status`: passed before, fails now; `steps` / `tokens` / `cost`: worse than the threshold; `missing`: in the baseline, not in this run. */
  readonly kind: 'status' | 'steps' | 'tokens' | 'cost' | 'missing';
  readonly message: string;
}

/** What a fuzz run fuzzed: the agent, by its name in the config, and its own tools. */
export interface FuzzSubject {
  readonly agent: string;
  readonly tools: readonly string[];
  /**
   * The tools given no `fuzz.args` whose input schema nothing can be drawn from (a transform, a recursive schema):
   * the model sends them only `{}` and a string that is not JSON, so their bodies run only where `{}` is valid.
   * Absent when every tool gets arguments (and in files written before it was recorded).
   */
  readonly withoutArgs?: readonly string[];
  /**
   * The config's loop, when it is not loopgate's (`loop: aiSdkLoop(…)`, a team's own) and `--loop loopgate` fuzzed
   * loopgate's own loop instead: that loop was not fuzzed. Absent when the config's loop was the one fuzzed.
   */
  readonly notFuzzed?: string;
}

/** The subject of a fuzz run: `withoutArgs` the tools that got no arguments (no `fuzz.args`, no schema to draw from). */
export function fuzzSubject(agent: string, tools: readonly string[], withoutArgs: readonly string[], notFuzzed?: string): FuzzSubject {
  return { agent, tools, ...(withoutArgs.length > 0 ? { withoutArgs: [...withoutArgs] } : {}), ...(notFuzzed !== undefined ? { notFuzzed } : {}) };
}

/** `agent NAME: tool, tool (and the scripted probe)`, and which got no arguments, as every report says it. */
export function fuzzSubjectText(subject: FuzzSubject): string {
  const tools = subject.tools.length > 0 ? `${subject.tools.join(', ')} (and the scripted probe)` : 'no tools of its own (only the scripted probe)';
  const bare = subject.withoutArgs?.length
    ? `; ${subject.withoutArgs.join(', ')} got only {} and a string that is not JSON (no fuzz.args, and an input schema nothing can be drawn from)`
    : '';
  const loop = subject.notFuzzed !== undefined ? ` — in loopgate's own loop: the config's loop ${subject.notFuzzed} is not fuzzed (loopgate run gates it)` : '';
  return `agent ${subject.agent}: ${tools}${bare}${loop}`;
}

export interface RunResults {
  readonly schema: typeof RESULTS_SCHEMA;
  readonly tool: { readonly name: 'loopgate'; readonly version: string };
  /**
   * The loop the agents ran in: `loopgate` (its own loop), `ai-sdk` or
   * `openai-agents`, with the version that ran (a peer's package version).
   * Absent in files written before it was recorded: those are runs of loopgate's loop.
   */
  readonly loop?: RunLoop;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly durationMs: number;
  readonly seed: number;
  /** Present when this run is one shard of several (`--shard i/n`). */
  readonly shard?: { readonly index: number; readonly total: number };
  /**
   * What the run selected before sharding: the config (relative to the working folder), how many cases and a digest
   * of their ids. Shards of one run agree on it; merge-reports refuses shards that do not. Absent in older files.
   */
  readonly suite?: RunSuite;
  /** A fuzz run: the agent fuzzed and its tools (the generators add a scripted `probe` tool besides). */
  readonly fuzz?: FuzzSubject;
  readonly summary: RunSummary;
  readonly cases: readonly CaseResult[];
  /** Present when the run was compared with a baseline. */
  readonly regressions?: readonly Regression[];
  /** Present when a peer loop's run was compared with its pinned verdicts (`verdicts:` in the config). */
  readonly verdicts?: { readonly file: string; readonly differences: readonly VerdictDifference[] };
}

export interface RunSuite {
  readonly config: string;
  readonly cases: number;
  /** suiteDigest of the selected case ids. */
  readonly digest: string;
  /**
   * The commit of the project the run was made from, when known (CI's commit variable, or the git HEAD of the
   * working directory): shards of one run are made from one commit.
   */
  readonly commit?: string;
}

/** The digest of a selection of cases: the first 16 hex digits of the SHA-256 of their ids, sorted (code units), one per line. */
export function suiteDigest(ids: readonly string[]): string {
  return createHash('sha256')
    .update([...ids].sort().join('\n'))
    .digest('hex')
    .slice(0, 16);
}

export interface RunLoop {
  readonly name: string;
  readonly version: string;
}

/** The loop a results file ran: files from before the field are of loopgate's own loop. */
export function loopOf(results: { readonly loop?: RunLoop }): string {
  return results.loop?.name ?? 'loopgate';
}

export interface VerdictDifference {
  readonly id: string;
  readonly kind: 'newly fails' | 'newly passes' | 'status' | 'judged differently' | 'not run' | 'not pinned';
  readonly message: string;
}

/** Whether the run checked nothing: no case passed or failed (every case skipped, or none). Such a run did not pass. */
export function nothingChecked(results: Pick<RunResults, 'summary'>): boolean {
  return results.summary.passed + results.summary.failed === 0;
}

/**
 * Whether the run passed, as its exit code says: something was checked, no
 * failed case (or, for a peer loop judged against its pinned verdicts, no
 * difference from them: it fails exactly as documented) and no regression.
 * Every report's mark is this.
 */
export function runPassed(results: Pick<RunResults, 'summary' | 'regressions' | 'verdicts'>): boolean {
  const differences = results.verdicts?.differences;
  return !nothingChecked(results) && (differences ? differences.length === 0 : results.summary.failed === 0) && (results.regressions?.length ?? 0) === 0;
}

export function summarize(cases: readonly CaseResult[]): RunSummary {
  const empty = (): { total: number; passed: number; failed: number; skipped: number } => ({ total: 0, passed: 0, failed: 0, skipped: 0 });
  const all = empty();
  const byKind = { table: empty(), contract: empty(), scenario: empty(), fuzz: empty() };
  for (const c of cases) {
    for (const bucket of [all, byKind[c.kind]]) {
      bucket.total++;
      bucket[c.status]++;
    }
  }
  const cost = suiteCost(cases);
  return { ...all, byKind, ...(cost ? { cost } : {}) };
}

/** The cost of the cases that have one; none when there are none, or when they are in different currencies. */
export function suiteCost(cases: readonly CaseResult[]): SuiteCost | undefined {
  const costs = cases.map((c) => c.metrics?.cost).filter((c): c is CaseCost => c !== undefined);
  const currency = costs[0]?.currency;
  if (currency === undefined || costs.some((c) => c.currency !== currency)) return undefined;
  const models = new Set(costs.flatMap((c) => c.unpricedModels ?? []));
  const amount = costs.reduce((sum, c) => sum + c.amount, 0);
  const uncounted = costs.reduce((n, c) => n + (c.uncountedCalls ?? 0), 0);
  return {
    currency,
    amount: amount === 0 ? 0 : Number(amount.toPrecision(12)),
    unpricedCalls: costs.reduce((n, c) => n + c.unpricedCalls, 0),
    ...(models.size > 0 ? { unpricedModels: [...models].sort() } : {}),
    ...(uncounted > 0 ? { uncountedCalls: uncounted } : {}),
    cases: costs.length,
  };
}
