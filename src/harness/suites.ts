/**
 * What `loopgate run` runs: scenario files with the agents and invariants of a
 * config, and — for the bundled suite — the state-table fixtures and the
 * provider contract suite on the fakes. A scenario's case id is its path
 * relative to the config's folder, so a baseline written anywhere matches.
 */
import type { Case } from './cases.ts';
import { INVARIANTS, type Invariant } from './invariants/index.ts';
import { NO_REPLY_ASSERTIONS } from './checks/reply-assertions.ts';
import { checkedScenarios } from './scenario/checked-scenarios.ts';
import { scenarioFilesUnder, type LoadedScenario } from './scenario/load.ts';
import { scenarioCases } from './scenario-case.ts';
import type { SuiteContext } from './suite-context.ts';

export type { SuiteContext } from './suite-context.ts';

/** The invariants of a suite: loopgate's, then the user's own. */
export function suiteInvariants(extra: readonly Invariant[] = []): readonly Invariant[] {
  return [...INVARIANTS, ...extra.filter((i) => !INVARIANTS.includes(i))];
}

/** The scenario files under `paths`, loaded and checked against the agents before anything runs. */
export async function loadSuiteScenarios(paths: readonly string[], context: SuiteContext): Promise<LoadedScenario[]> {
  return checkedScenarios(scenarioFilesUnder(paths), context.root, context.registry, context.replies ?? NO_REPLY_ASSERTIONS);
}

export async function scenarioCasesFrom(paths: readonly string[], context: SuiteContext): Promise<Case[]> {
  return (await loadSuiteScenarios(paths, context)).flatMap((l) => scenarioCases(l, context));
}

export interface SuiteSources {
  readonly tables: () => Case[];
  readonly contract: () => Case[];
  /** The agent refusal table (agent-refusals/): bad agents every build path must refuse with their line. */
  readonly refusals?: () => Case[];
  readonly scenarios: () => Promise<Case[]>;
}

export async function defaultCases(sources: SuiteSources): Promise<Case[]> {
  return [...sources.tables(), ...sources.contract(), ...(sources.refusals?.() ?? []), ...(await sources.scenarios())];
}
