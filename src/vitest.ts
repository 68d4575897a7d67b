/**
 * `loopgate/vitest`: loopgate's suites inside your own vitest run.
 *
 *   import { describeScenarios, describeLoopTable, describeModelClientContract, createWireHarness } from 'loopgate/vitest';
 *
 *   describeScenarios('support agent', ['scenarios/'], { agent: { tools: myTools, system: myPrompt } });
 *   describeLoopTable();
 *   describeModelClientContract('my anthropic config', createWireHarness('anthropic', { adapter: { model: 'claude-haiku-4-5' } }));
 */
import { describe, expect, it } from 'vitest';
import { possibleCells, runCell } from '../state-tables/cell-case.ts';
import { cellLabel } from '../state-tables/loop-table.ts';
import { scenarioFilesUnder } from './harness/scenario/load.ts';
import { runScenarioFile, type ScenarioFileOptions } from './harness/scenario-file.ts';

export * from '../providers/vitest.ts';
export { describeEventStoreContract } from './stores/store-conformance.ts';
export { runScenarioFile, type AgentUnderTest, type ScenarioFileOptions } from './harness/scenario-file.ts';

/** One test per scenario file under `paths`, run with your agent; a failure lists every failing check. */
export function describeScenarios(title: string, paths: readonly string[], options: ScenarioFileOptions = {}): void {
  describe(title, () => {
    for (const file of scenarioFilesUnder(paths)) {
      it(file, async () => {
        const outcome = await runScenarioFile(file, options);
        if (outcome.status === 'skipped') return;
        const failing = outcome.checks.filter((c) => !c.passed).map((c) => `${c.name}: ${c.message}`);
        expect(failing, `${outcome.name}\n${failing.join('\n')}`).toEqual([]);
      });
    }
  });
}

/** The loop's state table: every possible cell's fixture, checked three ways. */
export function describeLoopTable(seed = 1): void {
  describe('loopgate loop table', () => {
    for (const { event, state, cell } of possibleCells()) {
      it(`${event} while ${state} → ${cellLabel(cell)}`, async () => {
        const outcome = await runCell(event, state, cell, seed);
        const failing = outcome.checks.filter((c) => !c.passed).map((c) => `${c.name}: ${c.message}`);
        expect(failing).toEqual([]);
      });
    }
  });
}
