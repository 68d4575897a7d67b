import { describe, expect, it } from 'vitest';
import { EventLog, type AnyEvent } from '../../kernel/index.ts';
import { bundledContext } from '../../../test/support/bundled.ts';
import { parseScenario } from '../scenario/load.ts';
import { runScenario, type ScenarioRun } from '../second-host.ts';
import type { Verdict } from './invariant.ts';
import { toolRetriesFollowPolicy } from './tool-retries-follow-policy.ts';

const { registry } = await bundledContext();
const run = (yaml: string) => runScenario(parseScenario(yaml, 'test.yaml'), { seed: 1, agents: registry });
const check = (r: ScenarioRun) => toolRetriesFollowPolicy.check(r, {}) as Verdict;
const withEvents = (r: ScenarioRun, events: readonly AnyEvent[]): ScenarioRun => ({ ...r, log: new EventLog({ now: () => 0 }, events) });

const scenario = (behaviour: string, maxRetries: string) => `
name: a probe that throws on every attempt
tools:
  - name: probe
    description: a scripted tool
    sideEffect: NONE
    ${maxRetries}
    behaviour: ${behaviour}
provider:
  script:
    - tool_use: [{ id: p1, name: probe, args: {} }]
    - reply: It failed.
inbox:
  - say: go
expect: {}
`;

describe('tool-retries-follow-policy', () => {
  it('holds when a call that always throws ran 1 + maxRetries times (declared, and the default 2)', async () => {
    const declared = await run(scenario('[{ throw: boom }]', 'maxRetries: 1'));
    expect(declared.log.events.filter((e) => e.type === 'tool.started')).toHaveLength(2);
    expect(check(declared)).toBeUndefined();
    const byDefault = await run(scenario('[{ throw: boom }]', ''));
    expect(byDefault.log.events.filter((e) => e.type === 'tool.started')).toHaveLength(3);
    expect(check(byDefault)).toBeUndefined();
  });

  it('flags a call that gave up before its retries were spent, and one started more often than allowed', async () => {
    const r = await run(scenario('[{ throw: boom }]', ''));
    const lastStart = r.log.events.findLast((e) => e.type === 'tool.started')!;
    const fewer = r.log.events.filter((e) => e !== lastStart).map((e, seq) => Object.freeze({ ...e, seq }) as AnyEvent);
    expect(check(withEvents(r, fewer))).toMatch(/probe \(NONE, maxRetries 2\) call p1 ended TOOL_ERROR after 2 attempts; .* runs 3 times/);
    expect(check({ ...r, toolMaxRetries: new Map([['probe', 1]]) })).toMatch(/call p1 was started 3 times; its policy allows 2/);
  });

  it('does not count a call that stopped for a reason of its own: it worked, or failed for good', async () => {
    expect(check(await run(scenario('[{ throw: boom }, ok]', '')))).toBeUndefined();
    expect(check(await run(scenario('[{ fail: { code: E_DECLINED, retryable: false } }]', '')))).toBeUndefined();
  });
});
