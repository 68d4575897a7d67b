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
import { loadScenarioFile, parseScenario } from '../../src/harness/scenario/load.ts';
import { sideEffectsOnce } from '../../src/harness/invariants/invariant-13-side-effects-once.ts';
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

/** A refund and nothing else: no crash, so only a check made as the body starts can see the missing record. */
const PLAIN_REFUND = `
name: a refund, no crash
provider:
  script:
    - tool_use: [{ id: refund, name: issue_refund, args: { order_id: ORD-1001, amount: 10, reason: late } }]
    - reply: Refunded.
inbox:
  - say: Please refund ORD-1001.
expect:
  outcomes: [replied]
`;

describe('a refund with no crash (invariant 13 reads the store as the body starts)', () => {
  for (const host of ['loop', 'production'] as const)
    it(`${host} host: holds with the write-ahead record, and names the call without it`, async () => {
      const scenario = parseScenario(PLAIN_REFUND, 'plain-refund.yaml');
      const agents = (await bundledContext()).registry;
      const honest = await runScenario(scenario, { seed: 1, agents, host });
      expect(await sideEffectsOnce.check(honest, {})).toBeUndefined();
      const skipped = await runScenario(scenario, { seed: 1, agents, host, seams: { wrapDeps: withoutWriteAhead } });
      expect(skipped.executions.get('issue_refund')).toBe(1);
      expect(await sideEffectsOnce.check(skipped, {})).toMatch(/issue_refund \(STATEFUL\) call refund ran before the store held its start record/);
    });
});
