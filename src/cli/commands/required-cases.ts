/**
 * `loopgate run --require PATTERN`: cases that must run. A case the run skips —
 * the PostgreSQL store's contract without `LOOPGATE_POSTGRES_URL`, a live case
 * without its key, the AI SDK's contract without `ai` — passes the run as
 * skipped; where production depends on it, that is a certification that did not
 * happen (outside probe 56, MED-4: a team on PostgreSQL ran the bundled suite
 * without the variable, and a lock bug passed). Required, such a case fails the
 * run with why it was skipped.
 *
 * A pattern is matched as `--grep` is (the case's id or title, bounded); one
 * that matches none of the cases the run selects is a usage error, so a typo
 * never requires nothing.
 */
import type { Case } from '../../harness/cases.ts';
import { RegexTimeoutError } from '../../harness/bounded-regex.ts';
import { selectCases } from '../../harness/runner.ts';
import type { CaseResult } from '../../report/results.ts';
import { UsageError } from '../usage-error.ts';

/** The `--require` patterns, compiled before anything is loaded, run or written. */
export interface RequirePattern {
  readonly text: string;
  readonly pattern: RegExp;
}

export interface Required {
  /** Each pattern with the cases it requires. */
  readonly patterns: readonly { readonly text: string; readonly cases: ReadonlySet<Case> }[];
}

/** Compiles the patterns as typed; throws UsageError naming one that is not a regular expression. */
export function parseRequire(texts: readonly string[] | undefined): RequirePattern[] {
  return (texts ?? []).map((text) => {
    try {
      return { text, pattern: new RegExp(text) };
    } catch (error) {
      throw new UsageError(`--require ${JSON.stringify(text)}: not a regular expression: ${(error as Error).message}`);
    }
  });
}

/** The cases each pattern requires among those the run selects (all shards); throws UsageError naming a pattern that matches none. */
export function requiredCases(patterns: readonly RequirePattern[], selected: readonly Case[]): Required {
  return {
    patterns: patterns.map(({ text, pattern }) => {
      let hits: Case[];
      try {
        hits = selectCases(selected, { grep: pattern });
      } catch (error) {
        if (!(error instanceof RegexTimeoutError)) throw error;
        throw new UsageError(
          `--require ${JSON.stringify(text)}: did not finish matching the case ids within ${error.limitMs} ms (it backtracks without end: simplify the pattern)`,
        );
      }
      if (hits.length === 0)
        throw new UsageError(`--require ${JSON.stringify(text)}: matches none of the ${selected.length} case(s) this run selects (by id or title)`);
      return { text, cases: new Set(hits) };
    }),
  };
}

/** The result, failed if its case is required and the run skipped it — saying which pattern required it and why it was skipped. */
export function requiredResult(result: CaseResult, c: Case, required: Required): CaseResult {
  if (result.status !== 'skipped') return result;
  const by = required.patterns.find((p) => p.cases.has(c));
  if (by === undefined) return result;
  const message = `skipped, but --require ${JSON.stringify(by.text)} requires it: ${result.skipReason ?? 'no reason given'}`;
  return {
    ...result,
    status: 'failed',
    failure: `required: ${message}`,
    checks: [...result.checks, { name: 'required', passed: false, message, expected: 'run', actual: 'skipped' }],
  };
}
