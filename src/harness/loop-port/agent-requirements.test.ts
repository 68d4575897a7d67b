import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type Agent } from '../../kernel/index.ts';
import { scenarioSchema } from '../scenario/schema.ts';
import { agentRequirementsOf } from './agent-requirements.ts';

const tool = (name: string, sideEffect: 'NONE' | 'CRITICAL') =>
  defineTool({ name, description: name, input: z.object({ pr: z.number().optional() }), sideEffect, run: () => ({ ok: true }) });
const TOOLS = [tool('read_diff', 'NONE'), tool('merge_pr', 'CRITICAL')];
const scenario = (script: unknown[], inbox: unknown[] = [{ say: 'review PR 7' }]) =>
  scenarioSchema.parse({ name: 'x', inbox, provider: { script }, expect: {} });
const callsMerge = scenario([{ tool_use: [{ name: 'merge_pr', args: { pr: 7 } }] }, { reply: 'done' }]);
const readsOnly = scenario([{ tool_use: [{ name: 'read_diff', args: {} }] }, { reply: 'done' }]);
const needs = async (agent: Agent, s = callsMerge) => (await agentRequirementsOf(agent, s)).map((n) => n.need);

describe("what the agent's own settings need from a loop (a peer that drops them must skip, not pass)", () => {
  it("a policy that asks before a tool the script calls needs the policy, and the agent's approver", async () => {
    const agent: Agent = {
      tools: TOOLS,
      policy: { rules: [{ id: 'merge-asks', tools: ['merge_*'], decision: 'ask' }] },
      approver: { approve: async () => 'deny' as const },
    };
    const found = await agentRequirementsOf(agent, callsMerge);
    expect(found.map((n) => n.need)).toEqual(['policy', 'approver']);
    expect(found[0]!.why).toBe('its policy decides merge_pr: ask (rule merge-asks)');
    expect(await needs(agent, readsOnly)).toEqual([]);
  });

  it('a policy whose default is not allow needs the policy for any call; an allow-only policy needs nothing', async () => {
    expect(await needs({ tools: TOOLS, policy: { default: 'deny' } }, readsOnly)).toEqual(['policy']);
    expect(await needs({ tools: TOOLS, policy: { rules: [{ id: 'ok', decision: 'allow' }] } })).toEqual([]);
  });

  it("a called tool's output schema and its rendering for the model each need the loop to honour them; an uncalled one needs nothing", async () => {
    const read = TOOLS[0]!;
    const agent: Agent = { tools: [{ ...read, output: z.object({ ok: z.boolean() }), renderForModel: () => 'ok' }, TOOLS[1]!] };
    const found = await agentRequirementsOf(agent, readsOnly);
    expect(found).toEqual([
      { need: 'tool-output-schema', why: 'its tool read_diff declares an output schema' },
      { need: 'tool-rendering', why: 'its tool read_diff renders its results for the model' },
    ]);
    expect(await needs(agent, scenario([{ tool_use: [{ name: 'merge_pr', args: {} }] }, { reply: 'done' }]))).toEqual([]);
  });

  it('visibility layers that hide a called tool need visibility', async () => {
    const agent: Agent = { tools: TOOLS, visibility: [{ name: 'global', deny: ['merge_pr'] }] };
    expect(await needs(agent)).toEqual(['visibility']);
    expect(await needs(agent, readsOnly)).toEqual([]);
  });

  it("a claim policy that rewrites, drops or refuses one of the scenario's messages needs claim", async () => {
    const masks: Agent = {
      claim: { claim: (ms) => ({ decision: 'allow', rewrite: new Map(ms.filter((m) => /\d{4}/.test(m.text)).map((m) => [m.id, '[masked]'])) }) },
    };
    expect(await needs(masks, scenario([{ reply: 'ok' }], [{ say: 'card 4242 4242 4242 4242' }]))).toEqual(['claim']);
    expect(await needs(masks, scenario([{ reply: 'ok' }], [{ say: 'hello' }]))).toEqual([]);
    expect(await needs({ claim: { claim: () => ({ decision: 'deny', reason: 'closed' }) } }, readsOnly)).toEqual(['claim']);
  });

  it('a compactor needs compaction only where the script overflows; error handlers only where it errs', async () => {
    const agent: Agent = { compactor: { compact: () => null } as never, errorHandlers: [{ name: 'h', handle: () => undefined }] as never };
    expect(await needs(agent, readsOnly)).toEqual([]);
    expect(await needs(agent, scenario([{ overflow: 'request' }, { reply: 'ok' }]))).toEqual(['compaction']);
    expect(await needs(agent, scenario([{ error: { kind: 'overloaded' } }, { reply: 'ok' }]))).toEqual(['error-handlers']);
  });

  it('prompt fragments, checkpoints and budgets in the agent are needed as the same keys in a scenario are', async () => {
    expect(await needs({ prompt: [{ id: 'identity', priority: -100, text: 'You review.' }] }, readsOnly)).toEqual(['prompt-fragments']);
    expect(await needs({ checkpoints: [{ name: 'c', run: () => undefined }] }, readsOnly)).toEqual(['checkpoints']);
    expect(await needs({ config: { maxToolCallsPerTurn: 3, maxTokensPerSession: 9000, modelTimeoutMs: 5000 } }, readsOnly)).toEqual([
      'budget:tool-calls',
      'budget:tokens',
      'model-timeout',
    ]);
  });
});
