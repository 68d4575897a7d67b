/** A scenario's steps through a team's own client: one client per step from its harness, in order; a step it cannot serve stops the case, named. */
import { describe, expect, it } from 'vitest';
import type { Behaviour } from '../../providers/contract-suite/behaviours.ts';
import type { ContractHarness } from '../../providers/contract-suite/harness.ts';
import { reply } from '../../providers/fake/results.ts';
import type { ModelRequest } from '../kernel/index.ts';
import { OwnClientStepError, ownProvider } from './own-provider.ts';
import type { ProviderStep } from './scenario/schema.ts';

const MODEL = { model: 'm' };
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
    const own = await ownProvider('acme', harness, STEPS, 'case-1', { model: 'acme-large' });
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
    // Named for its model, as the loop tells clients apart by name (a retry-after window is its client's).
    expect([own.client.name, own.client.model]).toEqual(['acme:acme-large', 'acme-large']);
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

  it("names a step whose client rejected when the script runs out on the loop's retry of it (review L2)", async () => {
    const harness: ContractHarness = {
      name: 'acme',
      clientFor: () => ({ client: { name: 'acme', call: () => Promise.reject(new Error('socket hang up')) } }),
    };
    const own = await ownProvider('acme', harness, [{ reply: 'Hi.' }], 'r', MODEL);
    await expect(own.client.call(REQUEST)).rejects.toThrow('socket hang up');
    expect(await own.client.call(REQUEST)).toMatchObject({
      type: 'transport_error',
      kind: 'invalid_request',
      message:
        "scenario provider script exhausted at request 2: add a step (step 1's client rejected (Error: socket hang up), breaking the ModelClient contract: the loop takes a rejection for a network error, and a retry of it went to the next step's client)",
    });
    await own.release();
    // A client that answers no promise at all is passed through as it is: the loop names that contract violation.
    const plain = { type: 'reply', content: [], text: 'not a promise' };
    const bare: ContractHarness = { name: 'acme', clientFor: () => ({ client: { name: 'acme', call: () => plain as never } }) };
    const raw = await ownProvider('acme', bare, [{ reply: 'Hi.' }], 's', MODEL);
    expect(raw.client.call(REQUEST)).toBe(plain);
    await raw.release();
  });

  it('starts a harness shared by cases at once for the first and stops it after the last', async () => {
    const { harness, life } = recordingHarness();
    const [a, b] = await Promise.all([ownProvider('acme', harness, STEPS, 'a', MODEL), ownProvider('acme', harness, STEPS, 'b', MODEL)]);
    await a.release();
    expect(life).toEqual(['start']);
    await b.release();
    expect(life).toEqual(['start', 'stop']);
  });

  it('names the fallback apart from the primary: a client of its own', async () => {
    const { harness } = recordingHarness();
    const fallback = await ownProvider('acme', harness, STEPS, 'f', { which: 'fallback', model: 'acme-small' });
    expect([fallback.client.name, fallback.client.model]).toEqual(['acme fallback:acme-small', 'acme-small']);
    await fallback.release();
  });

  it('starts a harness again only once its stop has finished, and releases once however often it is told', async () => {
    const order: string[] = [];
    let finishStop: () => void = () => undefined;
    const harness: ContractHarness = {
      name: 'slow-stop',
      start: () => void order.push('start'),
      stop: () =>
        new Promise<void>((resolve) => {
          order.push('stop>');
          finishStop = () => {
            order.push('stop<');
            resolve();
          };
        }),
      clientFor: () => ({ client: { name: 'x', call: async () => reply('x') } }),
    };
    const first = await ownProvider('acme', harness, STEPS, 'g', MODEL);
    const stopped = first.release();
    expect(first.release()).toBe(stopped); // told again (a throw while the case set up, then its end): once
    const second = ownProvider('acme', harness, STEPS, 'h', MODEL);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(order).toEqual(['start', 'stop>']);
    finishStop();
    await stopped;
    const again = (await second).release();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(order).toEqual(['start', 'stop>', 'stop<', 'start', 'stop>']);
    finishStop();
    await again;
  });

  it('refuses an answer of clientFor that is neither a client nor a reason, naming the step, and lets the harness go', async () => {
    for (const [answer, said] of [
      [null, 'got null'],
      [{ clientt: {} }, 'client: expected a model client'],
      [{ unsupported: '' }, 'gives no reason'],
      [{ client: { name: 'x', call: async () => reply('x') }, secrets: 'key' }, 'its secrets are not a list of strings'],
    ] as const) {
      const life: string[] = [];
      const harness = { name: 'odd', stop: () => void life.push('stop'), clientFor: () => answer } as unknown as ContractHarness;
      const error = await ownProvider('acme', harness, STEPS, 'i', MODEL).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OwnClientStepError);
      expect((error as Error).message).toContain("provider.script[0] (step 1): client acme's harness answered no client:");
      expect((error as Error).message).toContain(said);
      expect(life).toEqual(['stop']);
    }
  });

  it('carries the credentials the harness gave so far with its failure: the report redacts them', async () => {
    let n = 0;
    const harness: ContractHarness = {
      name: 'leaky',
      clientFor: () => {
        if (++n === 1) return { client: { name: 'x', call: async () => reply('x') }, secrets: ['leaky-key-0a1b2c'] };
        throw new Error('GET /v1?key=leaky-key-0a1b2c refused');
      },
    };
    const error = (await ownProvider('acme', harness, STEPS, 'j', MODEL).catch((e: unknown) => e)) as OwnClientStepError;
    expect(error.secrets).toEqual(['leaky-key-0a1b2c']);
  });

  it("stops the case before it runs, naming the step and the harness's reason, and lets the harness go", async () => {
    const { harness, life } = recordingHarness(['http_error']);
    const error = await ownProvider('acme', harness, STEPS, 'c', { which: 'fallback', model: 'm' }).catch((e: unknown) => e);
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
    await expect(ownProvider('acme', throwing, STEPS, 'd', MODEL)).rejects.toThrow(
      "provider.script[0] (step 1): client acme's harness threw making its client: TypeError: fake.serve is not a function",
    );
    const failingStart: ContractHarness = { name: 'acme', start: () => Promise.reject(new Error('EADDRINUSE')), clientFor: () => ({ unsupported: 'x' }) };
    await expect(ownProvider('acme', failingStart, STEPS, 'e', MODEL)).rejects.toThrow("client acme: its harness's start threw: Error: EADDRINUSE");
  });
});
