/**
 * A fuzz property: a named check over one run of a scenario in the second host.
 * It returns nothing when the property holds and a sentence saying what went
 * wrong when it does not.
 */
import type { CheckResult } from '../report/results.ts';
import type { ScenarioRun } from '../harness/second-host.ts';

export interface PropertyContext {
  /** The fuzz case's crash point (an event index), when it has one. */
  readonly crashAt?: number;
  /** Crash points to check in memory when there is no crash point (default: every one, up to 24). */
  readonly crashPoints?: number;
}

export type Verdict = string | undefined;

export interface FuzzProperty {
  /** Stable id, kebab-case: it names the property in reports and in `--property`. */
  readonly name: string;
  /** One line for people. */
  readonly title: string;
  /** The DESIGN.md invariant it checks, if it is one of 1–13. */
  readonly invariant?: number;
  check(run: ScenarioRun, context: PropertyContext): Verdict | Promise<Verdict>;
}

const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** Defines a property (checks the name; users add their own properties with it). */
export function defineProperty(property: FuzzProperty): FuzzProperty {
  if (!NAME.test(property.name)) throw new Error(`fuzz property name "${property.name}": use lowercase letters, digits and dashes (e.g. refund-never-twice)`);
  if (typeof property.check !== 'function') throw new Error(`fuzz property ${property.name}: check must be a function`);
  return Object.freeze({ ...property });
}

/** An always-on harness check (src/harness/checks/invariants.ts) as a verdict. */
export function verdictOf(result: CheckResult): Verdict {
  return result.passed ? undefined : result.message;
}

/** The first violation of several checks, in order. */
export function firstViolation(...verdicts: (() => Verdict)[]): Verdict {
  for (const verdict of verdicts) {
    const v = verdict();
    if (v !== undefined) return v;
  }
  return undefined;
}
