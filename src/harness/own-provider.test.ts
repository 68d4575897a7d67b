/** A scenario's steps through a team's own client: one client per step from its harness, in order; a step it cannot serve stops the case, named. */
import { describe, expect, it } from 'vitest';
import type { Behaviour } from '../../providers/contract-suite/behaviours.ts';
import type { ContractHarness } from '../../providers/contract-suite/harness.ts';
import { reply } from '../../providers/fake/results.ts';
import type { ModelRequest } from '../kernel/index.ts';
import { OwnClientStepError, ownProvider } from './own-provider.ts';
import type { ProviderStep } from './scenario/schema.ts';

const REQUEST: ModelRequest = { model: 'm', system: '', messages: [], tools: [], maxTokens: 100 };

/** A harness whose client for each behaviour replies with the behaviour's kind; `refuse` names kinds it cannot serve. */
function recordingHarness(refuse: readonly Behaviour['kind'][] = []) {
  const asked: { caseId: string; behaviour: Behaviour }[] = [];
  const life: string[] = [];
  const harness: ContractHarness = {
    name: 'acme',
    start: () => void life.push('start'),
    stop: () => void life.push('stop'),
    clientFor: ({ caseId, behaviour }) => {
      asked.push({ caseId, behaviour });
      if (refuse.includes(behaviour.kind)) return { unsupported: `acme has no ${behaviour.kind}` };
      return { client: { name: 'acme', call: async () => reply(behaviour.kind) }, secrets: [`acme-key-${asked.length}`] };
    },
  };
  return { harness, asked, life };
}

const STEPS: ProviderStep[] = [
  { error: { kind: 'rate_limited', status: 429, retryAfterMs: 7000 } },
  { tool_use: [{ name: 'lookup', args: { id: 1 } }] },
  { reply: 'Done.' },
];

describe('ownProvider', () => {
  it("asks the harness for each step's behaviour, up front, and answers the n-th call through the n-th client", async () => {
    const { harness, asked, life } = recordingHarness();
    const own = await ownProvider('acme', harness, STEPS, 'case-1');
    expect(asked.map((a) => a.caseId)).toEqual(['case-1#script-1', 'case-1#script-2', 'case-1#script-3']);
    expect(asked.map((a) => a.behaviour)).toEqual([
      { kind: 'http_error', error: 'rate_limited', status: 429, retryAfterSeconds: 7 },
      {
        kind: 'turn',
        turn: { blocks: [{ type: 'tool_call', id: 'call_1', name: 'lookup', args: '{"id":1}' }], stop: 'tool_use', usage: { input: 10, output: 5 } },
      },
      { kind: 'turn', turn: { blocks: [{ type: 'text', text: 'Done.' }], stop: 'end', usage: { input: 10, output: 5 } } },
    ]);
    expect(own.secrets).toEqual(['acme-key-1', 'acme-key-2', 'acme-key-3']);
    expect(own.serving()).toBeUndefined();
    const texts: string[] = [];
    for (let i = 0; i < 3; i++) {
      const result = await own.client.call(REQUEST);
      texts.push(result.type === 'reply' ? result.text : result.type);
      expect(own.serving()).toBe(STEPS[i]);
    }
    expect(texts).toEqual(['http_error', 'turn', 'turn']);
    // Past the script: an invalid request, as the scripted provider answers.
    expect(await own.client.call(REQUEST)).toMatchObject({
      type: 'transport_error',
      kind: 'invalid_request',
      message: expect.stringContaining('exhausted at request 4'),
    });
    expect(life).toEqual(['start']);
    await own.release();
    expect(life).toEqual(['start', 'stop']);
  });

  it('starts a harness shared by cases at once for the first and stops it after the last', async () => {
    const { harness, life } = recordingHarness();
    const [a, b] = await Promise.all([ownProvider('acme', harness, STEPS, 'a'), ownProvider('acme', harness, STEPS, 'b')]);
    await a.release();
    expect(life).toEqual(['start']);
    await b.release();
    expect(life).toEqual(['start', 'stop']);
  });

  it("stops the case before it runs, naming the step and the harness's reason, and lets the harness go", async () => {
    const { harness, life } = recordingHarness(['http_error']);
    const error = await ownProvider('acme', harness, STEPS, 'c', 'fallback').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OwnClientStepError);
    expect((error as Error).message).toBe('provider.fallback[0] (step 1): client acme cannot serve it: acme has no http_error');
    expect(life).toEqual(['start', 'stop']);
  });

  it("tells a harness that throws in the team's words, not as loopgate's bug", async () => {
    const throwing: ContractHarness = {
      name: 'acme',
      clientFor: () => {
        throw new TypeError('fake.serve is not a function');
      },
    };
    await expect(ownProvider('acme', throwing, STEPS, 'd')).rejects.toThrow(
      "provider.script[0] (step 1): client acme's harness threw making its client: TypeError: fake.serve is not a function",
    );
    const failingStart: ContractHarness = { name: 'acme', start: () => Promise.reject(new Error('EADDRINUSE')), clientFor: () => ({ unsupported: 'x' }) };
    await expect(ownProvider('acme', failingStart, STEPS, 'e')).rejects.toThrow("client acme: its harness's start threw: Error: EADDRINUSE");
  });
});
