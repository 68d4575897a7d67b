/**
 * An invariant: a named rule every run of the loop must keep, checked from the
 * outside on the run the second host recorded (log, store, requests, responses,
 * traces). One shape for all of them — DESIGN.md's numbered invariants, the
 * reference checks beside them, and the ones users add for their own agent — so
 * `loopgate run`, `loopgate fuzz` and `fuzzAgent` check the same list.
 *
 * `check` returns nothing when the rule holds, and one sentence saying what went
 * wrong when it does not.
 *
 * A case may also run against another framework's loop (loop-port/): there is
 * no event log then, only what the harness saw from outside (a PeerRun). An
 * invariant that can judge such a run from that says how, in `checkObservable`;
 * one that cannot says why in `appliesTo` — and one that does neither is not
 * judged on it ("written for loopgate's own runs").
 */
import { isPeerRun, type PeerRun } from '../loop-port/peer-run.ts';
import type { ScenarioRun } from '../second-host.ts';

export type { PeerRun } from '../loop-port/peer-run.ts';

/** A run the invariants judge: loopgate's own (with its log), or another loop's, seen from outside. */
export type AnyRun = ScenarioRun | PeerRun;

export type Verdict = string | undefined;

export interface InvariantContext {
  /** The fuzz case's crash point (an event index): the crash is replayed on a real SQLite file. */
  readonly crashAt?: number;
  /** Crash points checked in memory when there is no crash point. */
  readonly crashPoints?: number;
  /** With `crashPoints`: also write the whole log to a real SQLite file, reopen it and resume (the production store, once per case). */
  readonly reopenFromSqlite?: boolean;
}

export interface Invariant {
  /** Stable id, kebab-case: it names the invariant in reports, `--property` and counterexample files. */
  readonly id: string;
  /** One line for people. */
  readonly title: string;
  /** The DESIGN.md invariant it checks, if it is one of the numbered ones. */
  readonly invariant?: number;
  /** Why the invariant cannot judge this run (parts the host swapped in; a peer's loop without the log it reads), or nothing when it applies. */
  appliesTo?(run: AnyRun): string | undefined;
  check(run: ScenarioRun, context: InvariantContext): Verdict | Promise<Verdict>;
  /** The same rule judged on another framework's loop, from what the harness saw outside it. */
  checkObservable?(run: PeerRun): Verdict;
}

const ID = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** Checks the id and freezes the invariant (users define their own with it). */
export function defineInvariant(invariant: Invariant): Invariant {
  if (!ID.test(invariant.id)) throw new Error(`invariant id "${invariant.id}": use lowercase letters, digits and dashes (e.g. refund-never-twice)`);
  if (typeof invariant.check !== 'function') throw new Error(`invariant ${invariant.id}: check must be a function`);
  if (invariant.appliesTo !== undefined && typeof invariant.appliesTo !== 'function')
    throw new Error(`invariant ${invariant.id}: appliesTo must be a function`);
  if (invariant.checkObservable !== undefined && typeof invariant.checkObservable !== 'function')
    throw new Error(`invariant ${invariant.id}: checkObservable must be a function`);
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
export function unlessHostSupplied(...parts: readonly HostPart[]): (run: AnyRun) => string | undefined {
  return (run) => {
    if (isPeerRun(run)) return undefined;
    const swapped = parts.filter((p) => run.hostParts.includes(p));
    return swapped.length > 0 ? `the host supplied the ${swapped.join(' and ')} in place of the scenario's` : undefined;
  };
}

/** `appliesTo` for a rule that reads what only loopgate's own run has: says why, for a peer's run. */
export function loopgateOnly(why: string, also?: (run: ScenarioRun) => string | undefined): (run: AnyRun) => string | undefined {
  return (run) => (isPeerRun(run) ? `${run.loop.id}: ${why}` : also?.(run));
}
