/** Running one bundled (or peers/) scenario file through a peer's loop, with the bundled agents, for the adapter tests. */
import { join, resolve } from 'node:path';
import { loadConfig } from '../../src/config/load-config.ts';
import { checkInvariants } from '../../src/harness/invariants/index.ts';
import { runPeerScenario } from '../../src/harness/loop-port/peer-host.ts';
import type { PeerRun } from '../../src/harness/loop-port/peer-run.ts';
import type { LoopUnderTestFactory } from '../../src/harness/loop-port/peer-world.ts';
import { loadScenarioFile } from '../../src/harness/scenario/load.ts';
import type { Scenario } from '../../src/harness/scenario/schema.ts';

const ROOT = resolve(import.meta.dirname, '../..');

export async function scenarioAt(path: string): Promise<Scenario> {
  const config = await loadConfig({});
  return loadScenarioFile(join(ROOT, 'scenarios', path), config.root).scenario;
}

export async function runFile(
  path: string,
  loop: LoopUnderTestFactory,
  edit: (s: Scenario) => Scenario = (s) => s,
): Promise<{ run: PeerRun; violations: Map<string, string> }> {
  const config = await loadConfig({});
  const run = await runPeerScenario(edit(await scenarioAt(path)), loop, { seed: 1, agents: config.registry });
  const violations = new Map((await checkInvariants(run)).filter((c) => !c.passed).map((c) => [c.name, c.message]));
  return { run, violations };
}
