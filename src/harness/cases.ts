/**
 * A case is anything the gate runs — a state-table cell, a contract case, a
 * scenario, a fuzz run — reduced to one shape, so one runner, one set of
 * reports and one baseline serve them all.
 */
import type { CaseKind, CaseMetrics, CaseResult, CheckResult, StepRequest, TimelineEntry } from '../report/results.ts';

export interface CaseContext {
  /** The case's own seed, derived from the run's seed and the case id. */
  readonly seed: number;
}

export interface CaseOutcome {
  readonly status: 'passed' | 'failed' | 'skipped';
  readonly outcome?: string;
  readonly checks: readonly CheckResult[];
  readonly metrics?: CaseMetrics;
  readonly timeline?: readonly TimelineEntry[];
  readonly requests?: readonly StepRequest[];
  readonly virtualMs?: number;
  readonly skipReason?: string;
  readonly repeats?: CaseResult['repeats'];
  /** The run's secrets (the agent's and the scenario's): the runner redacts the case's whole result with them, title and tags included. */
  readonly secrets?: readonly string[];
}

export interface Case {
  readonly id: string;
  readonly kind: CaseKind;
  readonly title: string;
  readonly file?: string;
  readonly tags?: readonly string[];
  /** The id its seed derives from, when it is not `id` (the same scenario through another host runs with the same seed). */
  readonly seedId?: string;
  /** Secrets known before it runs (a scenario's `secrets:`): its title, tags and any error it throws are redacted with them. */
  readonly secrets?: readonly string[];
  run(context: CaseContext): Promise<CaseOutcome>;
}

/** FNV-1a: a case's seed depends only on the run's seed and its id, never on sharding or order. */
export function caseSeed(runSeed: number, id: string): number {
  let h = 0x811c9dc5 ^ runSeed;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function statusFromChecks(checks: readonly CheckResult[]): 'passed' | 'failed' {
  return checks.every((c) => c.passed) ? 'passed' : 'failed';
}

/** A contract case that runs one check function and reports its checks, `outcome: checked`. */
export function checksCase(
  spec: { readonly id: string; readonly title: string; readonly file: string; readonly secrets?: readonly string[] },
  check: () => readonly CheckResult[] | Promise<readonly CheckResult[]>,
): Case {
  return {
    ...spec,
    kind: 'contract',
    run: async () => {
      const checks = [...(await check())];
      return { status: statusFromChecks(checks), outcome: 'checked', checks };
    },
  };
}
