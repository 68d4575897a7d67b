/**
 * The gate stops a case whose log grows without end (a loop that never settles) — and only such a case. Its
 * limit grows with what the scenario scripts, so a long conversation the schema allows (`times` up to 5,000)
 * is judged like any other; a case stopped is reported as stopped, once, not as the invariants the stop
 * itself breaks (outside probe 35, F8: a 3,001-turn scenario failed "invariant-12-nothing-throws,
 * outcome-follows-table" at an undocumented 20,000-event cap).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundledContext } from '../../test/support/bundled.ts';
import { nothingThrows } from './invariants/invariant-12-nothing-throws.ts';
import { loadScenarios, parseScenario } from './scenario/load.ts';
import { scenarioCase } from './scenario-case.ts';
import { eventLimitOf, runScenario } from './second-host.ts';

const conversation = (turns: number) =>
  [
    'name: a long conversation',
    'agent: none',
    'provider:',
    '  script:',
    `    - { reply: fine, times: ${turns} }`,
    'inbox:',
    '  - say: hi',
    `  - { say: more, times: ${turns - 1} }`,
    'expect:',
    '  outcome: replied',
    '',
  ].join('\n');

describe('the event limit of a case', () => {
  it('grows with what the scenario scripts: a long conversation is no runaway', async () => {
    const scenario = parseScenario(conversation(30), 'long.yaml');
    // 30 replies and 30 messages: far more than 100 events, and far fewer than the limit they buy.
    expect(eventLimitOf(scenario, 100)).toBeGreaterThan(1_000);
    expect(eventLimitOf(parseScenario(conversation(2), 'short.yaml'), 20_000)).toBe(20_000);
    const run = await runScenario(scenario, { seed: 1, maxEvents: 100 });
    expect(run.runaway).toBeUndefined();
    expect(run.thrown).toBeUndefined();
    expect(run.results.map((r) => r.outcome.kind)).toEqual(Array.from({ length: 30 }, () => 'replied'));
    expect(run.log.events.length).toBeGreaterThan(100);
  });

  it('a case past its limit is stopped and reported as a runaway, once, naming the limit', async () => {
    const scenario = parseScenario(conversation(30), 'long.yaml');
    const run = await runScenario(scenario, { seed: 1, seams: { eventLimit: 40 } });
    expect(run.runaway).toEqual({ limit: 40, of: 'the case' });
    // Invariant 12 (the fuzz reads it) names the runaway, not a throw.
    expect(nothingThrows.check(run, {})).toMatch(/^the case never settled: its log passed 40 events, the limit for this case/);

    const file = join(mkdtempSync(join(tmpdir(), 'loopgate-runaway-')), 'long.yaml');
    writeFileSync(file, conversation(30));
    const [loaded] = loadScenarios([file], dirname(file));
    const outcome = await scenarioCase(loaded!, { ...(await bundledContext()), seams: { eventLimit: 40 } }).run({ seed: 1 });
    expect(outcome.status).toBe('failed');
    expect(outcome.checks.filter((c) => !c.passed)).toEqual([
      {
        name: 'runaway',
        passed: false,
        message:
          'the case was stopped: its log passed 40 events, the limit for this case (it grows with the scenario: 64 events per step, message and tool call it scripts); a loop that never settles, or a loop bug. Its expectations and invariants were not judged (the stop cut the run short)',
      },
    ]);
  });
});
