/**
 * Loop configuration: step, tool-call and token budgets, the model timeout, the
 * retry tiers and compaction bounds. Each key is present only sometimes, so the
 * defaults are exercised too and a shrunk scenario keeps only what matters.
 *
 * Backoff jitter is 0 in most cases (see `withJitter`): it is the world's only
 * randomness. Sometimes it is not, so a wait scaled wrong by the jitter is met
 * (outside probe 7's plant P16: waits up to 11×); the wait check bounds each wait
 * by its tier and the configured jitter, whatever the draw, and the minimizer
 * tries jitter 0 first, so a counterexample that does not need it replays the
 * same under any seed.
 */
import fc from 'fast-check';
import type { ProviderStep, Scenario } from '../../harness/scenario/schema.ts';
import { sometimes, sparseRecord } from './optional.ts';

type Config = Scenario['config'];
type Retry = NonNullable<Config['retry']>;

const retryArb = sparseRecord<Required<Omit<Retry, 'jitter'>>>(
  {
    immediateRetries: fc.integer({ min: 0, max: 2 }),
    immediateDelayMs: fc.integer({ min: 0, max: 2_000 }),
    backoffRetries: fc.integer({ min: 0, max: 3 }),
    backoffBaseMs: fc.integer({ min: 0, max: 4_000 }),
    backoffMaxMs: fc.integer({ min: 0, max: 16_000 }),
    maxRetryAfterMs: fc.integer({ min: 0, max: 90_000 }),
  },
  50,
);

// No temperature: it changes no run of a scripted model (bundled loop/temperature-sent-recorded-and-recomputed keeps it recorded).
const budgetsArb = sparseRecord<Required<Omit<Config, 'retry' | 'temperature'>>>(
  {
    maxSteps: fc.integer({ min: 1, max: 6 }),
    maxToolCallsPerTurn: fc.integer({ min: 1, max: 6 }),
    maxToolCallsPerSession: fc.integer({ min: 1, max: 12 }),
    // Two times in three a multiple of the round 500-token step (provider.ts): spent exactly after a step or two.
    maxTokensPerTurn: fc.oneof(fc.integer({ min: 1, max: 3_000 }), fc.constantFrom(500, 1_000), fc.constantFrom(500, 1_000)),
    maxTokensPerSession: fc.oneof(fc.integer({ min: 1, max: 8_000 }), fc.constantFrom(500, 1_000, 1_500), fc.constantFrom(500, 1_000, 1_500)),
    modelTimeoutMs: fc.integer({ min: 1_000, max: 60_000 }),
    maxCompactionsPerStep: fc.integer({ min: 0, max: 3 }),
    maxCheckpointExtensions: fc.integer({ min: 0, max: 3 }),
    sideEffectNotice: fc.boolean(),
    toolMaxOutputChars: fc.integer({ min: 20, max: 400 }),
    maxTokens: fc.integer({ min: 1, max: 8_192 }),
    // The operator's wait before a tool's retry (tool-retries-wait-their-backoff): short, so a case's clock stays small.
    toolRetryBackoffMs: fc.constantFrom(100, 250, 1_000),
  },
  15,
);

/** Short retry tiers are common, so the fallback client (tier 3) and "tiers spent" are reached too. */
export const configArb: fc.Arbitrary<Config> = fc
  .tuple(budgetsArb, sometimes(retryArb, 35))
  .map(([budgets, retry]) => ({ ...budgets, ...(retry ? { retry } : {}) }));

/**
 * The per-session tool-call budget set to the number of calls the script has the
 * model make (all its turns, fallback included): the boundary, where a correct
 * loop runs every call it reaches and a budget counted one off — by attempts
 * instead of calls, or with `>=` — refuses one. Drawn independently, a budget
 * lands there too rarely to be met in a few hundred cases. Likewise
 * `maxRetryAfterMs` is set to the script's first retry-after, when it has one.
 */
export function atScriptBoundary(config: Config, steps: readonly BoundaryStep[], mode: Boundary = 'session'): Config {
  const calls = steps.reduce((n, step) => n + (step.tool_use?.length ?? 0), 0);
  const atCalls = calls > 0 ? { ...config, maxToolCallsPerSession: calls } : config;
  // The same for the retry-after limit: the script's first retry-after is exactly the longest the loop
  // will wait, which it must still wait (outside probe 11, P20: a limit checked with >= refused it).
  const retryAfterMs = steps.find((step) => step.error?.retryAfterMs !== undefined)?.error?.retryAfterMs;
  const atSession = retryAfterMs === undefined ? atCalls : { ...atCalls, retry: { ...atCalls.retry, maxRetryAfterMs: retryAfterMs } };
  if (mode === 'session') return atSession;
  return mode === 'session-crossed' ? crossedInTheSession(atSession, steps) : atTurnBoundary(atSession, steps, mode);
}

/**
 * `maxToolCallsPerSession` one short of the calls up to the script's first step that makes several, over all its
 * turns: that batch crosses the session's budget after the calls before it, and must be refused whole — a loop that
 * counts only the calls already run lets it through (outside probe 68: every seed passed that).
 */
function crossedInTheSession(config: Config, steps: readonly BoundaryStep[]): Config {
  let calls = 0;
  for (const step of steps) {
    if (step.error !== undefined) continue; // a failed attempt: the same step again
    const made = step.tool_use?.length ?? 0;
    if (made > 1) return { ...config, maxToolCallsPerSession: calls + made - 1 };
    calls += made;
  }
  return config;
}

/**
 * Which boundary a boundary case puts a budget on: the session's (above), or also a turn's (below) — its tool
 * calls or its tokens, one at a time (a turn that spends its tokens first never reaches the batch that crosses
 * its call budget) — or the session's call budget crossed by a batch (`session-crossed`, below).
 */
export type Boundary = 'session' | 'turn-calls' | 'turn-tokens' | 'session-crossed';
export const boundaryArb: fc.Arbitrary<Boundary> = fc.oneof(
  { weight: 2, arbitrary: fc.constant<Boundary>('session') },
  { weight: 1, arbitrary: fc.constantFrom<Boundary>('turn-calls', 'turn-tokens', 'session-crossed') },
);

type BoundaryStep = {
  readonly tool_use?: readonly unknown[];
  readonly error?: { readonly retryAfterMs?: number };
  readonly usage?: { readonly input?: number; readonly output?: number };
};

/**
 * The per-turn budgets set from the script's own steps (outside probe 13, Q01, Q02: drawn independently they
 * are met too rarely on a user's agent):
 * - `maxToolCallsPerTurn` one short of the calls up to the first step that makes several, counted from the
 *   last step that ended a turn (a reply, a refusal…): that batch crosses the budget after the turn's earlier
 *   calls, and must be refused whole — a loop that only checks the calls already made runs it;
 * - `maxTokensPerTurn` exactly the input + output tokens the turn has spent when its first tool-call step with
 *   usage ends: the budget is spent (reached counts, `>=`), so the next step must not start.
 */
function atTurnBoundary(config: Config, steps: readonly BoundaryStep[], mode: Exclude<Boundary, 'session'>): Config {
  let calls = 0;
  let tokens = 0;
  let callBudget: number | undefined;
  let tokenBudget: number | undefined;
  for (const step of steps) {
    if (step.error !== undefined) continue; // a failed attempt: the same step again
    const made = step.tool_use?.length ?? 0;
    if (made === 0) {
      calls = 0; // any other answer ends the turn
      tokens = 0;
      continue;
    }
    if (callBudget === undefined && made > 1) callBudget = calls + made - 1;
    calls += made;
    const spent = (step.usage?.input ?? 0) + (step.usage?.output ?? 0);
    if (!Number.isSafeInteger(spent)) break; // a count read as 2^53 − 1: no exact boundary to put a budget on
    tokens += spent;
    if (tokenBudget === undefined && step.usage !== undefined && tokens > 0) tokenBudget = tokens;
    if (callBudget !== undefined && tokenBudget !== undefined) break;
  }
  if (mode === 'turn-calls') return callBudget !== undefined ? { ...config, maxToolCallsPerTurn: callBudget } : config;
  return tokenBudget !== undefined ? { ...config, maxTokensPerTurn: tokenBudget } : config;
}

/** A backoff jitter other than 0, in hundredths (a case reads as it is written). */
export const jitterArb: fc.Arbitrary<number> = fc.integer({ min: 1, max: 100 }).map((n) => n / 100);

/** A stream that stalls on the wire ends only at the model timeout. */
const STALL_TIMEOUT_MS = 30_000;

/**
 * The config a script needs: one holding a stream that stalls on the wire (`error: { kind: timeout }`) gets a model
 * timeout (30 s) when it drew none — nothing else ends that stream, as in production (outside probe 58, HIGH-1).
 */
export function withStallTimeout(config: Config, steps: readonly ProviderStep[], wire: boolean): Config {
  if (!wire || config.modelTimeoutMs !== undefined || !steps.some((step) => step.error?.kind === 'timeout')) return config;
  return { ...config, modelTimeoutMs: STALL_TIMEOUT_MS };
}

/** The config with the drawn backoff jitter, or with jitter switched off (the run then does not depend on the seed). */
export function withJitter(config: Config, jitter: number | undefined): Config {
  return { ...config, retry: { ...config.retry, jitter: jitter ?? 0 } };
}
