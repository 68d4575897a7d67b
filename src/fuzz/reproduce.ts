/**
 * Does a counterexample file fail the way `loopgate run FILE` would judge it?
 * Runs it exactly as a scenario case (expectations plus the checks made on every
 * scenario) and returns the failing checks. Pass the same host parts (tools,
 * test seams) the fuzz run had, or none for the real example agent.
 */
import { caseSeed } from '../harness/cases.ts';
import { checkExpectations } from '../harness/checks/expectations.ts';
import { checkInvariants } from '../harness/checks/invariants.ts';
import { loadScenarioFile } from '../harness/scenario/load.ts';
import { runScenario, type RunOptions } from '../harness/second-host.ts';
import type { CheckResult } from '../report/results.ts';

export async function reproduce(file: string, host: Omit<RunOptions, 'seed'> = {}, runSeed = 1): Promise<CheckResult[]> {
  const loaded = loadScenarioFile(file, process.cwd());
  const run = await runScenario(loaded.scenario, { ...host, seed: caseSeed(runSeed, loaded.id) });
  return [...checkExpectations(run, loaded.scenario.expect), ...checkInvariants(run)].filter((c) => !c.passed);
}
