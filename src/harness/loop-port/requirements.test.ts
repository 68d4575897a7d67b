import { describe, expect, it } from 'vitest';
import { scenarioSchema } from '../scenario/schema.ts';
import { LOOPGATE_CAPABILITIES, type Capabilities } from './capabilities.ts';
import { requirementsOf, skipReason } from './requirements.ts';

const base = { name: 'x', inbox: [{ say: 'hi' }], provider: { script: [{ reply: 'ok' }] }, expect: {} };
const scenario = (extra: Record<string, unknown>) => scenarioSchema.parse({ ...base, ...extra });
const PEER: Capabilities = { supports: ['tool-timeout'], history: 'session', time: 'patched-timers' };

describe('what a scenario needs from its loop', () => {
  it('a plain scenario needs nothing', () => {
    expect(requirementsOf(scenario({}))).toEqual([]);
  });

  it('derives each need from the keys the scenario uses', () => {
    expect(requirementsOf(scenario({ inbox: [{ say: 'hi' }, { steer: 'and', at: { request: 1 } }, { inject: 'also', at: { event: 3 } }] }))).toEqual([
      'steer',
      'inject',
      'event-triggers',
    ]);
    expect(requirementsOf(scenario({ policy: { rules: [] }, compaction: ['none'], config: { maxTokensPerTurn: 10 } }))).toEqual([
      'policy',
      'compaction',
      'budget:tokens',
    ]);
  });

  it('a hung tool needs a tool timeout only when no cancel cuts it short; the timeout can be the agent’s own', () => {
    const hang = { tools: [{ name: 'slow', description: 'd', behaviour: ['hang'] }] };
    expect(requirementsOf(scenario(hang))).toContain('tool-timeout');
    expect(requirementsOf(scenario({ ...hang, inbox: [{ say: 'hi' }, { cancel: 'user', at: { time: 5 } }] }))).not.toContain('tool-timeout');
    const slow = { tools: [{ name: 'lookup_order', behaviour: [{ slow: 9000 }] }] };
    expect(requirementsOf(scenario(slow), new Map([['lookup_order', 5000]]))).toContain('tool-timeout');
    expect(requirementsOf(scenario(slow), new Map([['lookup_order', 10_000]]))).not.toContain('tool-timeout');
  });

  it('says what is missing, by name and meaning; loopgate lacks nothing', () => {
    const needs = requirementsOf(scenario({ inbox: [{ say: 'hi' }, { steer: 'and', at: { request: 1 } }], claim: { allow: true } }));
    expect(skipReason('openai-agents', needs, PEER)).toBe(
      'openai-agents has no steer (a steer reaches the running turn at its next step); no claim (a claim policy deciding what a turn takes)',
    );
    expect(skipReason('loopgate', needs, LOOPGATE_CAPABILITIES)).toBeUndefined();
  });
});
