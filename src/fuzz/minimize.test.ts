import { describe, expect, it } from 'vitest';
import { parseScenario } from '../harness/scenario/load.ts';
import { scenarioSchema, type Scenario } from '../harness/scenario/schema.ts';
import { minimizeScenario } from './minimize.ts';

describe('minimizeScenario', () => {
  it('removes every part the failure does not need, and keeps the ones it does', async () => {
    const big = parseScenario(
      [
        'name: big',
        'config: { maxSteps: 3, retry: { jitter: 0, backoffRetries: 1 } }',
        'compaction: [none]',
        'claim: { allow: true }',
        'provider:',
        '  script:',
        '    - { reply: one, latencyMs: 5 }',
        '    - refusal: no',
        '    - reply: three',
        'inbox:',
        '  - say: a',
        '  - inject: b',
        '  - say: c',
        'expect: {}',
      ].join('\n'),
      'big.yaml',
    );
    // The "bug" needs a refusal somewhere in the script and at least two follow-ups.
    const fails = async (s: typeof big) => s.provider.script.some((p) => p.refusal !== undefined) && s.inbox.filter((e) => e.say !== undefined).length >= 2;
    const { scenario, removals } = await minimizeScenario(big, fails);
    expect(scenario.provider.script).toEqual([{ refusal: 'no' }]);
    expect(scenario.inbox).toEqual([{ say: 'a' }, { say: 'c' }]);
    expect(scenario.config).toEqual({ retry: { jitter: 0 } });
    expect(scenario.compaction).toBeUndefined();
    expect(scenario.claim).toBeUndefined();
    expect(removals).toBeGreaterThan(5);
  });

  it("drops the arguments of a call that the failure does not need (the fuzzer's planted passphrase among them)", async () => {
    const found = parseScenario(
      [
        'name: found',
        'provider:',
        '  script:',
        '    - tool_use:',
        '        - { name: transfer, args: { to: alice, amount: 25, remark: customer gave passphrase orchard-FUZZ-7731 } }',
        '        - { name: transfer, args: { to: alice, amount: 76, remark: customer gave passphrase orchard-FUZZ-7731 } }',
        'inbox:',
        '  - say: a',
        'expect: {}',
      ].join('\n'),
      'found.yaml',
    );
    // The "bug": the amounts overdraw a balance of 100 (the recipient and the remark play no part).
    const total = (s: typeof found) =>
      s.provider.script.flatMap((p) => p.tool_use ?? []).reduce((n, c) => n + Number((c.args as { amount?: number }).amount ?? 0), 0);
    const { scenario } = await minimizeScenario(found, async (s) => total(s) > 100);
    expect(scenario.provider.script[0]!.tool_use!.map((c) => c.args)).toEqual([{ amount: 25 }, { amount: 76 }]);
  });

  it('keeps no removal that leaves an invalid scenario (a disconnect naming a message no longer posted, a crash without its reopen)', async () => {
    const found = parseScenario(
      [
        'name: found',
        'host: production',
        'provider:',
        '  script:',
        '    - reply: one',
        '    - reply: two',
        'inbox:',
        '  - say: a',
        '  - say: b',
        '  - disconnect: 2',
        '  - crash: true',
        '  - reopen: true',
        'expect: {}',
      ].join('\n'),
      'found.yaml',
    );
    // A "bug" any scenario shows: every removal would be kept if validity were not checked.
    const seen: Scenario[] = [];
    const { scenario, removals } = await minimizeScenario(found, async (s) => (seen.push(s), true));
    expect(removals).toBeGreaterThan(0);
    for (const candidate of [...seen, scenario]) {
      const problems = scenarioSchema.safeParse(candidate).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
      expect(problems, JSON.stringify(candidate.inbox)).toBeUndefined();
    }
  });

  it('keeps the model timeout of a case whose stream stalls on the wire: without it the case hangs for another reason', async () => {
    const stalled = parseScenario(
      [
        'name: stalled',
        'config: { modelTimeoutMs: 30000, maxSteps: 4 }',
        'provider:',
        '  kind: wire',
        '  provider: anthropic',
        '  script:',
        '    - error: { kind: timeout }',
        'inbox:',
        '  - say: a',
        'expect: {}',
      ].join('\n'),
      'stalled.yaml',
    );
    // Every variant that still stalls "fails" (as one that hangs without its timeout would).
    const { scenario } = await minimizeScenario(stalled, async (s) => s.provider.script.some((step) => step.error?.kind === 'timeout'));
    expect(scenario.config.modelTimeoutMs).toBe(30000);
    expect(scenario.config.maxSteps).toBeUndefined();
  });

  it('removes an inbox entry and a provider step together when neither alone keeps the failure', async () => {
    const found = parseScenario(
      [
        'name: found',
        'provider:',
        '  script:',
        '    - reply: one',
        '    - reply: two',
        '    - refusal: no',
        'inbox:',
        '  - say: a',
        '  - say: b',
        '  - say: c',
        'expect: {}',
      ].join('\n'),
      'found.yaml',
    );
    // The "bug" needs the refusal and as many messages as answers: one removal alone always loses it.
    const fails = async (s: Scenario) => s.provider.script.some((p) => p.refusal !== undefined) && s.inbox.length === s.provider.script.length;
    const { scenario } = await minimizeScenario(found, fails);
    expect(scenario.inbox).toEqual([{ say: 'a' }]);
    expect(scenario.provider.script).toEqual([{ refusal: 'no' }]);
  });
});
