/**
 * An invariant: a named rule every run of the loop must keep, checked from the
 * outside on the run the second host recorded (log, store, requests, responses,
 * traces). One shape for all of them — DESIGN.md's numbered invariants, the
 * reference checks beside them, and the ones users add for their own agent — so
 * `loopgate run`, `loopgate fuzz` and `fuzzAgent` check the same list.
 *
 * `check` returns nothing when the rule holds, and one sentence saying what went
 * wrong when it does not.
 */
import type { ScenarioRun } from '../second-host.ts';

export type Verdict = string | undefined;

export interface InvariantContext {
  /** The fuzz case's crash point (an event index): the crash is replayed on a real SQLite file. */
  readonly crashAt?: number;
  /** Crash points checked in memory when there is no crash point. */
  readonly crashPoints?: number;
}

export interface Invariant {
  /** Stable id, kebab-case: it names the invariant in reports, `--property` and counterexample files. */
  readonly id: string;
  /** One line for people. */
  readonly title: string;
  /** The DESIGN.md invariant it checks, if it is one of the numbered ones. */
  readonly invariant?: number;
  /** Why the invariant cannot judge this run (parts the host swapped in), or nothing when it applies. */
  appliesTo?(run: ScenarioRun): string | undefined;
  check(run: ScenarioRun, context: InvariantContext): Verdict | Promise<Verdict>;
}

const ID = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** Checks the id and freezes the invariant (users define their own with it). */
export function defineInvariant(invariant: Invariant): Invariant {
  if (!ID.test(invariant.id)) throw new Error(`invariant id "${invariant.id}": use lowercase letters, digits and dashes (e.g. refund-never-twice)`);
  if (typeof invariant.check !== 'function') throw new Error(`invariant ${invariant.id}: check must be a function`);
  if (invariant.appliesTo !== undefined && typeof invariant.appliesTo !== 'function')
    throw new Error(`invariant ${invariant.id}: appliesTo must be a function`);
  return Object.freeze({ ...invariant });
}

/** The first violation of several rules, in order. */
export function firstViolation(...verdicts: (() => Verdict)[]): Verdict {
  for (const verdict of verdicts) {
    const v = verdict();
    if (v !== undefined) return v;
  }
  return undefined;
}

/** Parts a host may swap in for the scenario's (see ScenarioRun.hostParts). */
export type HostPart = ScenarioRun['hostParts'][number];

/** `appliesTo` for a rule that predicts from the scenario file's own parts. */
export function unlessHostSupplied(...parts: readonly HostPart[]): (run: ScenarioRun) => string | undefined {
  return (run) => {
    const swapped = parts.filter((p) => run.hostParts.includes(p));
    return swapped.length > 0 ? `the host supplied the ${swapped.join(' and ')} in place of the scenario's` : undefined;
  };
}
