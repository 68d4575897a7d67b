/**
 * Running scenario files from code (your own test suite, scripts): the same
 * runner and checks as `loopgate run`, with your agent's tools and prompt.
 */
import type { AnyToolDeclaration } from '../kernel/index.ts';
import type { CaseOutcome } from './cases.ts';
import { caseSeed } from './cases.ts';
import { checkExpectations } from './checks/expectations.ts';
import { checkInvariants } from './invariants/index.ts';
import { loadScenarioFile } from './scenario/load.ts';
import { outcomeOfRun } from './scenario-case.ts';
import { runScenario } from './second-host.ts';

export interface AgentUnderTest {
  /** Your tools; scenario files script their behaviour by name (`tools:` entries). */
  readonly tools?: readonly AnyToolDeclaration[];
  readonly system?: string;
}

export interface ScenarioFileOptions {
  readonly agent?: AgentUnderTest;
  readonly seed?: number;
}

export async function runScenarioFile(path: string, options: ScenarioFileOptions = {}): Promise<CaseOutcome & { readonly id: string; readonly name: string }> {
  const loaded = loadScenarioFile(path, process.cwd());
  const run = await runScenario(loaded.scenario, {
    seed: caseSeed(options.seed ?? 1, loaded.id),
    ...(options.agent?.tools ? { tools: options.agent.tools } : {}),
    ...(options.agent?.system ? { system: options.agent.system } : {}),
  });
  const checks = [...checkExpectations(run, loaded.scenario.expect), ...(await checkInvariants(run))];
  return { ...outcomeOfRun(run, checks), id: loaded.id, name: loaded.scenario.name };
}
