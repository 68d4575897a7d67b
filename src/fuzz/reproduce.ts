/**
 * Does a counterexample file still fail? Runs it exactly as `loopgate run FILE`
 * judges a scenario (its expectations plus the checks made on every scenario) and
 * returns the failing checks. Give the same host parts (your tools, or a test's
 * broken seam) the fuzz run had, and your own invariants to check them too.
 */
import { caseSeed } from '../harness/cases.ts';
import { checkExpectations } from '../harness/checks/expectations.ts';
import { checkInvariants, INVARIANTS, type Invariant } from '../harness/invariants/index.ts';
import { loadScenarioFile } from '../harness/scenario/load.ts';
import { runScenario, type RunOptions } from '../harness/second-host.ts';
import type { CheckResult } from '../report/results.ts';
import { peerScenarioCase, type PeerSuite } from '../harness/loop-port/peer-case.ts';
import { NeverSettledError, unlessStarved } from '../harness/never-settled.ts';

export interface ReproduceOptions {
  readonly host?: Omit<RunOptions, 'seed'> | undefined;
  /** Invariants beyond the registry's (your own). */
  readonly invariants?: readonly Invariant[];
  /** The run seed `loopgate run` would be given (default 1). */
  readonly seed?: number;
}

/** What `loopgate run` reports of a case starved (runner.ts): its one failing check. */
function starved(error: NeverSettledError): CheckResult[] {
  return [{ name: 'harness', passed: false, message: error.message }];
}

export async function reproduce(file: string, options: ReproduceOptions = {}): Promise<CheckResult[]> {
  const loaded = loadScenarioFile(file, process.cwd());
  let run;
  try {
    run = await unlessStarved(runScenario(loaded.scenario, { ...options.host, seed: caseSeed(options.seed ?? 1, loaded.id) }));
  } catch (error) {
    if (error instanceof NeverSettledError) return starved(error);
    // A run that throws (a store breaking its contract as the case ends) fails the case, as `loopgate run` fails it
    // (runner.ts), instead of ending the fuzz run as an internal error (outside probe 67, sqlite-list-dup).
    return threw(error);
  }
  const extra = (options.invariants ?? []).filter((i) => !INVARIANTS.includes(i));
  try {
    const checks = [...checkExpectations(run, loaded.scenario.expect), ...(await checkInvariants(run, [...INVARIANTS, ...extra]))];
    // A bystander's conversation, judged as `loopgate run` judges it.
    if (run.bystander) {
      const named = (c: CheckResult): CheckResult => ({ ...c, name: `bystander ${c.name}` });
      checks.push(
        ...checkExpectations(run.bystander, run.bystander.scenario.expect).map(named),
        ...(await checkInvariants(run.bystander, [...INVARIANTS, ...extra])).map(named),
      );
    }
    return checks.filter((c) => !c.passed);
  } catch (error) {
    // A run that cannot be judged (its log refuses what the store gave it) fails the case the same way (outside probe 66b).
    return threw(error);
  }
}

/** What `loopgate run` reports of a case that threw (runner.ts): its one failing check. */
function threw(error: unknown): CheckResult[] {
  return [{ name: 'harness', passed: false, message: `the case threw: ${(error as Error)?.stack ?? String(error)}` }];
}

/** The same for a loop behind the port: the file run as `loopgate run FILE` runs it against that loop, its failing checks. */
export async function reproduceOnLoop(file: string, suite: PeerSuite, seed = 1): Promise<CheckResult[]> {
  const loaded = loadScenarioFile(file, process.cwd());
  try {
    const outcome = await unlessStarved(peerScenarioCase(loaded, suite).run({ seed: caseSeed(seed, loaded.id) }));
    return outcome.checks.filter((c) => !c.passed);
  } catch (error) {
    if (error instanceof NeverSettledError) return starved(error);
    // A loop whose create() throws fails the case in `loopgate run` too (the case threw): the file reproduces that.
    return [{ name: 'the case threw', passed: false, message: (error as Error)?.message ?? String(error) }];
  }
}
