import { describe, expect, it } from 'vitest';
import { parseScenario } from '../harness/scenario/load.ts';
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
});
