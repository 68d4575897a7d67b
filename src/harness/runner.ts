/**
 * Runs cases: filtered by --grep, split by --shard, several at a time
 * (--concurrency), each with its own seed. A case that throws is a failed case
 * with the error as its check — the runner itself never stops early.
 */
import { NeverSettledError, unlessStarved } from './never-settled.ts';
import { OwnClientStepError } from './own-provider.ts';
import { createRedactor, InputError, REDACTED, redactDeep, redactSecretPieces, type Redactor } from '../kernel/index.ts';
import type { CaseResult, CheckResult } from '../report/results.ts';
import { testAllWithin } from './bounded-regex.ts';
import { caseSeed, type Case } from './cases.ts';
import { AgentBuildError } from './world/agent-under-test.ts';

export interface RunOptions {
  readonly seed: number;
  readonly concurrency: number;
  readonly grep?: RegExp;
  readonly shard?: { readonly index: number; readonly total: number };
  /** A case's result; `c` is the case (its result's id may be redacted). */
  readonly onResult?: (result: CaseResult, done: number, total: number, c: Case) => void;
  readonly onStart?: (c: Case) => void;
}

/** Which cases this run takes: grep, then shard by position in id order (stable across machines). */
export function selectCases(cases: readonly Case[], options: Pick<RunOptions, 'grep' | 'shard'>): Case[] {
  const sorted = [...cases].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const seen = new Map<string, Case>();
  for (const c of sorted) {
    const other = seen.get(c.id);
    if (other) {
      const files = other.file && c.file ? ` (${other.file} and ${c.file}; rename one)` : '';
      throw new InputError(`two cases share the id ${c.id}${files}`);
    }
    seen.set(c.id, c);
  }
  // The user's pattern, bounded: one that backtracks without end is a RegexTimeoutError, not a hang.
  const hits = options.grep
    ? testAllWithin(
        options.grep,
        sorted.flatMap((c) => [c.id, c.title]),
      )
    : undefined;
  const grepped = hits ? sorted.filter((_, i) => hits[2 * i] || hits[2 * i + 1]) : sorted;
  const shard = options.shard;
  return shard ? grepped.filter((_, i) => i % shard.total === shard.index - 1) : grepped;
}

export async function runCases(cases: readonly Case[], options: RunOptions): Promise<CaseResult[]> {
  const results: CaseResult[] = new Array(cases.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < cases.length) {
      const index = next++;
      const c = cases[index]!;
      options.onStart?.(c);
      const result = await runOne(c, options.seed);
      results[index] = result;
      done++;
      options.onResult?.(result, done, cases.length, c);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, cases.length)) }, worker));
  return results;
}

/**
 * A case's id as its result reports it: redacted with the secrets known before it runs. What a suite is counted by
 * (its digest, the pinned cases it still selects), so shards and pins of a case named after a secret match its result.
 */
export function reportedId(c: Pick<Case, 'id' | 'secrets'>): string {
  return c.secrets?.length ? reportRedactor(c.secrets)(c.id) : c.id;
}

/** The first failing check, and the names of the others (an invariant broken beside a failed expectation is worth reading). */
function failureLine(first: CheckResult, checks: readonly CheckResult[]): string {
  const others = [...new Set(checks.filter((check) => !check.passed && check !== first).map((check) => check.name))].filter((name) => name !== first.name);
  return `${first.name}: ${first.message}${others.length > 0 ? ` (also failed: ${others.join(', ')})` : ''}`;
}

/**
 * The case's result with every string — its title, tags and failure included — passed through the redactor of
 * its secrets, the same one its checks and timeline passed: no report carries a secret the case was told to keep.
 */
function redacted(result: CaseResult, redact: Redactor): CaseResult {
  return redactDeep(result, redact) as CaseResult;
}

/**
 * What a case's result passes before it is reported: its secrets in every form
 * the redactor knows and the credential shapes, then any piece of half a secret
 * or more (a leaked half of a password, a fragment an expectation names), which
 * the gate's own rule counts as a leak too (secret-fragments-never-leave).
 */
function reportRedactor(secrets: readonly string[]): Redactor {
  const redact = createRedactor({ secrets });
  return (text: string) => redactSecretPieces(redact(text), secrets, REDACTED);
}

/**
 * A failing check whose text held a secret: redacted, its "expected" and "got" can read alike (the secret is what
 * differed), so the message says the text held one.
 */
function saySecretsHeld(checks: readonly CheckResult[], redact: Redactor): CheckResult[] {
  return checks.map((check) =>
    !check.passed && redact(check.message) !== check.message
      ? { ...check, message: `${check.message} (this text held a secret of the case, shown here as [REDACTED])` }
      : check,
  );
}

async function runOne(c: Case, runSeed: number): Promise<CaseResult> {
  const started = performance.now();
  const base = { id: c.id, kind: c.kind, title: c.title, ...(c.file ? { file: c.file } : {}), ...(c.tags?.length ? { tags: c.tags } : {}) };
  try {
    const outcome = await unlessStarved(c.run({ seed: caseSeed(runSeed, c.seedId ?? c.id) }));
    const redact = reportRedactor([...(c.secrets ?? []), ...(outcome.secrets ?? [])]);
    const checks = saySecretsHeld(outcome.checks, redact);
    const failing = checks.find((check) => !check.passed);
    return redacted(
      {
        ...base,
        status: outcome.status,
        ...(outcome.outcome !== undefined ? { outcome: outcome.outcome } : {}),
        durationMs: Math.round((performance.now() - started) * 100) / 100,
        ...(outcome.virtualMs !== undefined ? { virtualMs: outcome.virtualMs } : {}),
        ...(failing ? { failure: failureLine(failing, checks) } : {}),
        ...(outcome.skipReason ? { skipReason: outcome.skipReason } : {}),
        checks,
        ...(outcome.metrics ? { metrics: outcome.metrics } : {}),
        ...(outcome.timeline ? { timeline: outcome.timeline } : {}),
        ...(outcome.requests ? { requests: outcome.requests } : {}),
        ...(outcome.repeats ? { repeats: outcome.repeats } : {}),
      },
      redact,
    );
  } catch (error) {
    // The code under test failing to build its agent is its own failure, told in its words; anything else is a bug, with its stack.
    const message =
      error instanceof AgentBuildError || error instanceof NeverSettledError || error instanceof OwnClientStepError
        ? error.message
        : `the case threw: ${(error as Error)?.stack ?? String(error)}`;
    return redacted(
      {
        ...base,
        status: 'failed',
        durationMs: Math.round(performance.now() - started),
        failure: message,
        checks: [{ name: 'harness', passed: false, message }],
      },
      // The team's harness's credentials, when its failure is what is told (its words may carry one).
      reportRedactor([...(c.secrets ?? []), ...(error instanceof OwnClientStepError ? error.secrets : [])]),
    );
  }
}
