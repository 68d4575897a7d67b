/**
 * Does a counterexample file still fail? Runs it exactly as `loopgate run FILE`
 * judges a scenario (its expectations plus the checks made on every scenario) and
 * returns the failing checks. Give the same host parts (your tools, or a test's
 * broken seam) the fuzz run had, and the properties `loopgate run` does not know
 * (your own, or ones the every-scenario checks skip for host parts) to check them too.
 */
import { caseSeed } from '../harness/cases.ts';
import { checkExpectations } from '../harness/checks/expectations.ts';
import { checkInvariants } from '../harness/checks/invariants.ts';
import { loadScenarioFile } from '../harness/scenario/load.ts';
import { runScenario, type RunOptions } from '../harness/second-host.ts';
import type { CheckResult } from '../report/results.ts';
import type { FuzzProperty } from './property.ts';

export interface ReproduceOptions {
  readonly host?: Omit<RunOptions, 'seed'> | undefined;
  readonly properties?: readonly FuzzProperty[];
  /** The run seed `loopgate run` would be given (default 1). */
  readonly seed?: number;
}

export async function reproduce(file: string, options: ReproduceOptions = {}): Promise<CheckResult[]> {
  const loaded = loadScenarioFile(file, process.cwd());
  const run = await runScenario(loaded.scenario, { ...options.host, seed: caseSeed(options.seed ?? 1, loaded.id) });
  const failing = [...checkExpectations(run, loaded.scenario.expect), ...checkInvariants(run)].filter((c) => !c.passed);
  for (const property of options.properties ?? []) {
    const verdict = await property.check(run, {});
    if (verdict !== undefined) failing.push({ name: `property ${property.name}`, passed: false, message: verdict });
  }
  return failing;
}
