/**
 * The "gate" judge of mutation testing (bench/mutation/README.md): what a user
 * gates their agent with — `loopgate run` on the bundled suite (state-table
 * cells, the provider contract suite on the fakes, every bundled scenario through
 * every host) and a bounded `loopgate fuzz` with fixed seeds — run in-process as
 * vitest tests, one test per case, so Stryker's vitest runner can run only the
 * cases that reach a mutant. A mutant this file does not kill lives past the gate.
 *
 * Collecting the cases calls no product code beyond loading modules and the
 * config: what `loopgate run` checks before it runs anything (every scenario
 * against its agent) runs inside each scenario's test, so Stryker sees which test
 * reaches what instead of counting it as reached by all of them.
 *
 * Not part of `npm test` (the same cases run there already, in
 * src/harness/bundled-suite.test.ts and test/fuzz/bounded-fuzz.test.ts); run by
 * `npm run mutate -- --judge gate` through bench/mutation/vitest.gate.config.ts.
 */
import { describe, expect, it } from 'vitest';
import { agentRefusalCases } from '../../src/harness/agent-refusals/refusal-cases.ts';
import { loadBundledContractCases } from '../../src/harness/bundled-contract.ts';
import { aiSdkContractCases } from '../../src/loops/ai-sdk/contract-cases.ts';
import { openAiAgentsContractCases } from '../../src/loops/openai-agents/contract-cases.ts';
import { fuzzContractCases } from '../../src/fuzz/contract-cases.ts';
import { caseSeed, type Case } from '../../src/harness/cases.ts';
import { checkScenarioAgents } from '../../src/harness/scenario/check-agents.ts';
import { checkReplyAssertionNames } from '../../src/harness/scenario/check-reply-assertions.ts';
import { loadScenarios } from '../../src/harness/scenario/load.ts';
import { scenarioCases } from '../../src/harness/scenario-case.ts';
import { defaultCases } from '../../src/harness/suites.ts';
import { DEFAULT_HOSTS } from '../../src/harness/suite-context.ts';
import { runFuzz } from '../../src/fuzz/run-fuzz.ts';
import { tableCases } from '../../state-tables/cell-case.ts';
import { BUNDLED_CONFIG, loadConfig } from '../../src/config/load-config.ts';
import { bundledContext, bundledFuzzOptions } from '../../test/support/bundled.ts';
import { GATE_FUZZ, GATE_RUN_SEED } from './gate-budget.ts';

const config = await loadConfig({ path: BUNDLED_CONFIG });
const context = { ...(await bundledContext()), hosts: DEFAULT_HOSTS };
const loaded = loadScenarios(config.scenarios, context.root);
checkReplyAssertionNames(loaded, config.replies);
/** Exactly what `loopgate run` (no arguments, bundled config) collects; each scenario case checks its agent first. */
const contract = await loadBundledContractCases();
const cases: Case[] = await defaultCases({
  tables: tableCases,
  contract: () => [...contract(), ...aiSdkContractCases(), ...openAiAgentsContractCases(), ...fuzzContractCases()],
  refusals: agentRefusalCases,
  scenarios: async () =>
    loaded.flatMap((l) =>
      scenarioCases(l, context).map((c) => ({
        ...c,
        run: async (at) => {
          await checkScenarioAgents([l], context.registry);
          return c.run(at);
        },
      })),
    ),
});

describe('loopgate run', () => {
  for (const c of cases) {
    it(c.id, async () => {
      const outcome = await c.run({ seed: caseSeed(GATE_RUN_SEED, c.seedId ?? c.id) });
      const failing = outcome.checks.filter((check) => !check.passed).map((check) => `${check.name}: ${check.message}`);
      expect(failing).toEqual([]);
      expect(['passed', 'skipped']).toContain(outcome.status);
    });
  }
});

describe('loopgate fuzz', () => {
  for (const seed of GATE_FUZZ.seeds) {
    it(`seed ${seed}, ${GATE_FUZZ.runs} runs`, async () => {
      const result = await runFuzz({ runs: GATE_FUZZ.runs, seed, maxShrinkMs: GATE_FUZZ.maxShrinkMs, ...(await bundledFuzzOptions()) });
      expect(result.failure && `${result.failure.invariant.id}: ${result.failure.message}`).toBeUndefined();
    });
  }
});
