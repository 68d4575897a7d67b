/**
 * Messages through the production host while a turn runs (invariant 9 through the
 * host): a steer or inject posted mid-turn reaches the running turn, a follow-up
 * becomes the next turn, an inject never wakes an idle conversation, every message
 * is stored once and taken once, and each request answers with the turn that took
 * its message. Plus cancel, aborts, and a second host on the same store.
 */
import { describe, expect, it } from 'vitest';
import { call, reply, toolUse } from '../../providers/fake/results.ts';
import { SupportBackend } from '../../scenarios/example-agent/backend.ts';
import { supportTools } from '../../scenarios/example-agent/tools.ts';
import { GatedModel, userTexts } from '../../test/support/gated-model.ts';
import { isKnown, type AnyEvent, type LogEvent } from '../kernel/index.ts';
import { MemoryEventStore } from '../stores/memory-store.ts';
import { defaultHostConfig } from './config.ts';
import { AgentHost } from './host.ts';

function setup(store = new MemoryEventStore(), model = new GatedModel()) {
  let n = 0;
  const agent = new AgentHost({ config: defaultHostConfig(), store, model, tools: supportTools(new SupportBackend()), newId: () => `m${n++}` });
  return { agent, store, model };
}

function known(events: readonly AnyEvent[]): LogEvent[] {
  return events.filter(isKnown) as LogEvent[];
}

/** Invariant 9 on the stored log: each message received once, taken at most once per turn, never twice without a return between. */
function expectExactlyOnce(events: readonly AnyEvent[]): void {
  const log = known(events);
  const received = log.filter((e) => e.type === 'inbox.received').map((e) => e.payload.id);
  expect(new Set(received).size, 'an inbox message stored twice').toBe(received.length);
  const state = new Map<string, 'pending' | 'taken'>();
  for (const e of log) {
    if (e.type === 'inbox.received') state.set(e.payload.id, 'pending');
    if (e.type === 'user.message') {
      expect(state.get(e.payload.id), `message ${e.payload.id} taken while ${state.get(e.payload.id)}`).toBe('pending');
      state.set(e.payload.id, 'taken');
    }
    if (e.type === 'inbox.returned') for (const id of e.payload.ids) state.set(id, 'pending');
  }
}

async function storedTypes(store: MemoryEventStore, conversation: string): Promise<string[]> {
  return (await store.read(conversation)).map((r) => r.type);
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

describe('a steer sent while a turn runs', () => {
  it('is stored at once, taken into the running turn, and both requests answer with that turn', async () => {
    const { agent, store, model } = setup();
    const booking = agent.handle('c', 'Book a table for two.');
    const first = await model.nth(0);

    const steer = agent.handle('c', 'Make it four people.', { intent: 'steer' });
    // Durable while the turn is still waiting for the model: not held back behind the lock.
    await until(
      async () => (await store.read('c')).some((r) => r.type === 'inbox.received' && (r.payload as { text: string }).text.includes('four')),
      'the steer is stored',
    );
    expect(first.settled).toBe(false);

    first.answer(reply('Booked for two.'));
    const second = await model.nth(1);
    expect(userTexts(second.request)).toEqual(['Book a table for two.', 'Make it four people.']); // the same turn's next step
    second.answer(reply('Booked for four.'));

    const [a, b] = await Promise.all([booking, steer]);
    expect(a).toMatchObject({ status: 200, delivery: 'turn', reply: 'Booked for four.', turns: [{ turn: 0, outcome: 'replied', steps: 2 }] });
    expect(b).toMatchObject({ status: 200, delivery: 'joined', reply: 'Booked for four.', turns: [{ turn: 0, outcome: 'replied', steps: 2 }] });
    expect(b.messageId).toBeDefined();
    const events = await agent.events('c');
    expect(known(events).filter((e) => e.type === 'turn.opened')).toHaveLength(1);
    expect(known(events).find((e) => e.type === 'user.message' && e.payload.id === b.messageId)).toMatchObject({ payload: { turn: 0, intent: 'steer' } });
    expectExactlyOnce(events);
    await agent.close();
  });

  it('to an idle conversation starts a turn of its own (a steer wakes the loop)', async () => {
    const { agent, model } = setup();
    const steer = agent.handle('c', 'Actually, cancel my order.', { intent: 'steer' });
    (await model.nth(0)).answer(reply('Which order?'));
    expect(await steer).toMatchObject({ status: 200, delivery: 'turn', reply: 'Which order?' });
    await agent.close();
  });
});

describe('an inject', () => {
  it('to an idle conversation never wakes it: stored, 202 queued, and the next turn takes it before its follow-up', async () => {
    const { agent, store, model } = setup();
    const inject = await agent.handle('c', '[context: the customer is a VIP]', { intent: 'inject' });
    expect(inject).toMatchObject({ status: 202, delivery: 'queued', turns: [] });
    expect(model.calls).toHaveLength(0);
    expect(await storedTypes(store, 'c')).toEqual(['inbox.received']);

    const question = agent.handle('c', 'Where is ORD-1002?');
    const only = await model.nth(0);
    expect(userTexts(only.request)).toEqual(['[context: the customer is a VIP]', 'Where is ORD-1002?']);
    only.answer(reply('It has shipped.'));
    expect(await question).toMatchObject({ status: 200, delivery: 'turn', reply: 'It has shipped.' });
    expectExactlyOnce(await agent.events('c'));
    await agent.close();
  });

  it('sent while a turn runs joins its next step, and answers with that turn', async () => {
    const { agent, model } = setup();
    const question = agent.handle('c', 'Where is ORD-1002?');
    const first = await model.nth(0);
    const inject = agent.handle('c', '[context: ORD-1002 ships from Lyon]', { intent: 'inject' });
    await until(() => agent.isBusy('c'), 'posted');
    first.answer(toolUse([call('t1', 'lookup_order', { order_id: 'ORD-1002' })]));
    const second = await model.nth(1);
    expect(userTexts(second.request)).toContain('[context: ORD-1002 ships from Lyon]');
    second.answer(reply('It has shipped, from Lyon.'));
    expect(await inject).toMatchObject({ status: 200, delivery: 'joined', reply: 'It has shipped, from Lyon.', turns: [{ turn: 0, toolCalls: 1 }] });
    expect((await question).reply).toBe('It has shipped, from Lyon.');
    await agent.close();
  });

  it('sent during the last step is not taken by it: 202 queued, and the next turn takes it', async () => {
    const { agent, model } = setup();
    const question = agent.handle('c', 'Hello?');
    const first = await model.nth(0);
    const inject = agent.handle('c', '[context: late]', { intent: 'inject' });
    await until(() => (agent as AgentHost).isBusy('c'), 'posted');
    first.answer(reply('Hi!'));
    expect(await inject).toMatchObject({ status: 202, delivery: 'queued', turns: [] });
    expect(await question).toMatchObject({ reply: 'Hi!', turns: [{ steps: 1 }] });
    expect(model.calls).toHaveLength(1); // it did not wake the loop

    const next = agent.handle('c', 'Still there?');
    const second = await model.nth(1);
    expect(userTexts(second.request).slice(-2)).toEqual(['[context: late]', 'Still there?']);
    second.answer(reply('Yes.'));
    await next;
    expectExactlyOnce(await agent.events('c'));
    await agent.close();
  });
});

describe('a follow-up sent while a turn runs', () => {
  it('is stored at once and becomes the next turn; each request answers with its own turn, the first without waiting for the second', async () => {
    const { agent, store, model } = setup();
    const one = agent.handle('c', 'First question');
    const first = await model.nth(0);
    const two = agent.handle('c', 'Second question');
    await until(async () => (await storedTypes(store, 'c')).filter((t) => t === 'inbox.received').length === 2, 'the follow-up is stored');
    first.answer(reply('First answer'));
    const second = await model.nth(1);
    expect(userTexts(second.request)).toEqual(['First question', 'Second question']);
    // The first request is answered while the second turn still waits for its model.
    const answered = await one;
    expect(second.settled).toBe(false);
    expect(answered).toMatchObject({ delivery: 'turn', reply: 'First answer', turns: [{ turn: 0 }] });
    second.answer(reply('Second answer'));
    expect(await two).toMatchObject({ delivery: 'turn', reply: 'Second answer', turns: [{ turn: 1 }] });
    expectExactlyOnce(await agent.events('c'));
    await agent.close();
  });
});

describe('cancel', () => {
  it('host.cancel cancels the running turn (first reason wins) and says whether it did', async () => {
    const { agent, model } = setup();
    expect(agent.cancel('c', 'user')).toBe(false); // nothing running
    const pending = agent.handle('c', 'Long question');
    await model.nth(0);
    expect(agent.cancel('c', 'parent')).toBe(true);
    expect(agent.cancel('c', 'user')).toBe(false); // already cancelled
    const envelope = await pending;
    expect(envelope).toMatchObject({ status: 499, turns: [{ outcome: 'cancelled{parent}', returnedToInbox: [envelope.messageId] }] });
    expect(agent.cancel('c', 'user')).toBe(false);
    expect(agent.cancel('other', 'user')).toBe(false);
    await agent.close();
  });

  it("aborting a request whose message the running turn took cancels that turn; aborting one that waits for another host's lock stores nothing", async () => {
    const store = new MemoryEventStore();
    const a = setup(store);
    const b = setup(store, new GatedModel('b'));
    const running = a.agent.handle('c', 'Question for host A');
    const inA = await a.model.nth(0);

    // Host B shares the store (and its conversation lock): its messages wait for A's turn.
    const withdrawn = new AbortController();
    const gone = b.agent.handle('c', 'I give up', { signal: withdrawn.signal });
    const steer = b.agent.handle('c', 'Please hurry', { intent: 'steer' });
    await until(() => b.agent.isBusy('c'), 'B waits');
    withdrawn.abort();
    expect(await gone).toMatchObject({ status: 499, messageId: undefined, turns: [] });

    inA.answer(reply('A answers'));
    expect((await running).reply).toBe('A answers');
    // B's steer could not reach A's turn (another host): it is the next turn, run by B.
    (await b.model.nth(0)).answer(reply('B answers the steer'));
    expect(await steer).toMatchObject({ status: 200, delivery: 'turn', reply: 'B answers the steer', turns: [{ turn: 1 }] });
    const texts = known(await b.agent.events('c')).flatMap((e) => (e.type === 'inbox.received' ? [e.payload.text] : []));
    expect(texts).toEqual(['Question for host A', 'Please hurry']); // the withdrawn message was never stored

    // And an abort once the running turn took the message cancels it as the user.
    const aborted = new AbortController();
    const third = b.agent.handle('c', 'Third', { signal: aborted.signal });
    await b.model.nth(1);
    aborted.abort();
    expect(await third).toMatchObject({ status: 499, turns: [{ outcome: 'cancelled{user}' }] });
    expectExactlyOnce(await b.agent.events('c'));
    await a.agent.close();
    await b.agent.close();
  });
});
