/**
 * The crash scenarios lean on the write-ahead record (invariant 13): a STATEFUL
 * call's start is in the store before its body runs. Here the loop runs through
 * the production host with that one record removed — the journal still writes
 * `tool.started`, but the persist it triggers is skipped — and the bundled
 * scenario that crashes while a refund runs must fail: recovery finds no start
 * record, reports the refund NOT_RUN, and the model is told it never ran.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LoopDeps, ToolExecutor } from '../../src/kernel/index.ts';
import { checkExpectations } from '../../src/harness/checks/expectations.ts';
import { loadScenarioFile } from '../../src/harness/scenario/load.ts';
import { runScenario } from '../../src/harness/second-host.ts';
import { BUNDLED_ROOT, bundledContext } from '../support/bundled.ts';

/** The loop with its write-ahead record removed: `started` appends, but the persist it triggers writes nothing. */
function withoutWriteAhead(deps: LoopDeps): LoopDeps {
  let inStarted = false;
  const tools: ToolExecutor = {
    specs: () => deps.tools.specs(),
    parallelSafe: (name) => deps.tools.parallelSafe(name),
    execute: (call, ctx) =>
      deps.tools.execute(call, {
        ...ctx,
        recorder: {
          ...ctx.recorder,
          policy: (...args) => ctx.recorder.policy(...args),
          alreadyStarted: (callId) => ctx.recorder.alreadyStarted(callId),
          started: (entry) => {
            inStarted = true;
            try {
              return ctx.recorder.started(entry);
            } finally {
              inStarted = false;
            }
          },
        },
      }),
  };
  return { ...deps, tools, persist: () => (inStarted ? Promise.resolve() : deps.persist()) };
}

const SCENARIO = join(BUNDLED_ROOT, 'crash/crash-while-refund-runs-never-reruns.yaml');

describe('crash while a refund runs', () => {
  it('passes with the write-ahead record', async () => {
    const { scenario } = loadScenarioFile(SCENARIO, BUNDLED_ROOT);
    const run = await runScenario(scenario, { seed: 1, agents: (await bundledContext()).registry });
    expect(checkExpectations(run, scenario.expect).filter((c) => !c.passed)).toEqual([]);
  });

  it('fails without it: the refund that ran is reported NOT_RUN to the model', async () => {
    const { scenario } = loadScenarioFile(SCENARIO, BUNDLED_ROOT);
    const run = await runScenario(scenario, { seed: 1, agents: (await bundledContext()).registry, seams: { wrapDeps: withoutWriteAhead } });
    const failing = checkExpectations(run, scenario.expect).filter((c) => !c.passed);
    expect(failing.map((c) => c.name)).toContain('tool results');
    expect(JSON.stringify(failing.find((c) => c.name === 'tool results')?.actual)).toContain('NOT_RUN');
    expect(run.executions.get('issue_refund')).toBe(1); // it did run: the record was what went missing
  });
});
