/**
 * What `loopgate run` runs. With no paths: the state-table fixtures, the provider
 * contract suite on the fakes, and the bundled scenarios. With paths: the
 * scenario files under them.
 */
import { join, relative, resolve } from 'node:path';
import type { Case } from './cases.ts';
import { loadScenarios } from './scenario/load.ts';
import { scenarioCase } from './scenario-case.ts';

/** The package's own directory (where scenarios/bundled lives). */
export const PACKAGE_ROOT = resolve(import.meta.dirname, '../..');
export const BUNDLED_SCENARIOS = join(PACKAGE_ROOT, 'scenarios', 'bundled');

export function bundledScenarioCases(): Case[] {
  return loadScenarios([BUNDLED_SCENARIOS], BUNDLED_SCENARIOS).map(scenarioCase);
}

/** Scenario files under the given paths, ids relative to the working directory. */
export function scenarioCasesFrom(paths: readonly string[]): Case[] {
  const root = process.cwd();
  return loadScenarios(paths, root).map((l) => scenarioCase({ ...l, id: relative(root, resolve(root, l.id)) || l.id }));
}

export interface SuiteSources {
  readonly tables: () => Case[];
  readonly contract: () => Case[];
  readonly scenarios: () => Case[];
}

export function defaultCases(sources: SuiteSources): Case[] {
  return [...sources.tables(), ...sources.contract(), ...sources.scenarios()];
}
