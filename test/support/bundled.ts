/** The bundled suite's context — its config's agents, loopgate's invariants — for tests that run bundled scenarios directly. */
import { join } from 'node:path';
import { BUNDLED_CONFIG, loadConfig } from '../../src/config/load-config.ts';
import type { SuiteContext } from '../../src/harness/suites.ts';
import { suiteInvariants } from '../../src/harness/suites.ts';
import type { AgentRegistry } from '../../src/harness/second-host.ts';
import { fuzzCasesFor } from '../../src/fuzz/fuzz-agent.ts';
import type { FuzzCaseOptions } from '../../src/fuzz/generators/scenario.ts';

export const BUNDLED_ROOT = join(import.meta.dirname, '../../scenarios/bundled');

export async function bundledContext(): Promise<SuiteContext> {
  const config = await loadConfig({ path: BUNDLED_CONFIG });
  return {
    registry: config.registry,
    invariants: suiteInvariants(config.invariants),
    root: config.root,
    replies: config.replies,
    ...(config.prices ? { prices: config.prices } : {}),
  };
}

/** What `loopgate fuzz` runs with the bundled config: the support agent's tools and arguments, the agents to build them from. */
export async function bundledFuzzOptions(): Promise<{ cases: FuzzCaseOptions; host: { agents: AgentRegistry } }> {
  const config = await loadConfig({ path: BUNDLED_CONFIG });
  const agent = config.fuzz.agent ?? config.registry.defaultAgent ?? 'none';
  return { cases: await fuzzCasesFor(config.registry, agent, config.fuzz.args), host: { agents: config.registry } };
}
