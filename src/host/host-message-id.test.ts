/**
 * A client's message id (`handle(id, text, { messageId })`, an HTTP
 * Idempotency-Key): the message is stored once under that id, and a request
 * repeating it is answered with what became of it — never run again. Probe 7, F2:
 * after a crash a client cannot tell whether its message was stored, so it
 * retries; without an id the retry ran the request twice.
 */
import { describe, expect, it } from 'vitest';
import { reply } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { GatedModel } from '../../test/support/gated-model.ts';
import { isKnown, type AnyEvent } from '../kernel/index.ts';
import { MemoryEventStore } from '../stores/memory-store.ts';
import { defaultHostConfig } from './config.ts';
import { AgentHost } from './host.ts';

const received = (events: readonly AnyEvent[]) =>
  events.filter((e) => isKnown(e) && e.type === 'inbox.received').map((e) => (e.payload as { id: string; text: string }).id);
const opened = (events: readonly AnyEvent[]) => events.filter((e) => isKnown(e) && e.type === 'turn.opened').length;

describe('handle(…, { messageId })', () => {
  it('stores the message under the client’s id; a retry after the answer gets the same turn back, and runs nothing', async () => {
    const model = new ScriptedModelClient([reply('delivered Monday'), reply('never sent')]);
    const host = new AgentHost({ config: defaultHostConfig(), store: new MemoryEventStore(), model });
    const first = await host.handle('c', 'Where is ORD-1001?', { messageId: 'q-1' });
    const retry = await host.handle('c', 'Where is ORD-1001?', { messageId: 'q-1' });
    expect(first).toMatchObject({ status: 200, messageId: 'q-1', delivery: 'turn', reply: 'delivered Monday' });
    expect(retry).toEqual(first);
    const events = await host.events('c');
    expect([received(events), opened(events), model.requests.length]).toEqual([['q-1'], 1, 1]);
    await host.close();
  });

  it('a retry while the first request still waits shares its answer; either client may go away without cancelling the turn', async () => {
    const model = new GatedModel();
    const host = new AgentHost({ config: defaultHostConfig(), store: new MemoryEventStore(), model });
    const first = new AbortController();
    const firstAnswer = host.handle('c', 'question', { messageId: 'm-1', signal: first.signal });
    await model.nth(0);
    const second = new AbortController();
    const secondAnswer = host.handle('c', 'question', { messageId: 'm-1', signal: second.signal });
    const third = host.handle('c', 'question', { messageId: 'm-1' });
    first.abort(); // the first client goes: the turn goes on for the retries
    second.abort(); // a retry's client goes: only its request ends
    expect(await firstAnswer).toMatchObject({ status: 499, delivery: 'turn', messageId: 'm-1' });
    expect(await secondAnswer).toMatchObject({ status: 499, delivery: 'turn', messageId: 'm-1' });
    model.calls[0]!.answer(reply('the answer'));
    expect(await third).toMatchObject({ status: 200, delivery: 'turn', reply: 'the answer', messageId: 'm-1' });
    const events = await host.events('c');
    expect([received(events), opened(events), model.calls.length]).toEqual([['m-1'], 1, 1]);
    await host.close();
  });

  it('a retry of a message waiting in the inbox (recovery returned it) is answered by the turn that takes it, once', async () => {
    const store = new MemoryEventStore();
    const gated = new GatedModel();
    const dying = new AgentHost({ config: defaultHostConfig(), store, model: gated });
    void dying.handle('c', 'question', { messageId: 'm-1' });
    await gated.nth(0);
    dying.halt(); // the process dies mid-request: the message is stored, taken, never answered
    await dying.idle();
    const model = new ScriptedModelClient([reply('answered once'), reply('never sent')]);
    const next = new AgentHost({ config: defaultHostConfig(), store, model });
    const sweep = await next.recoverAll();
    expect(sweep.recovered[0]?.returnedIds).toEqual(['m-1']);
    const retry = await next.handle('c', 'question', { messageId: 'm-1' });
    expect(retry).toMatchObject({ status: 200, delivery: 'turn', reply: 'answered once', messageId: 'm-1' });
    expect(retry.turns.map((t) => t.turn)).toEqual([1]);
    const events = await next.events('c');
    expect([received(events), opened(events), model.requests.length]).toEqual([['m-1'], 2, 1]);
    await next.close();
  });

  it('refuses an id with another text or intent (422), a malformed id or one that holds a secret (400): nothing stored', async () => {
    const secret = 'sk-live-Secret-0123456789';
    const model = new ScriptedModelClient([reply('one')]);
    const host = new AgentHost({ config: defaultHostConfig(), store: new MemoryEventStore(), model, secrets: [secret] });
    await host.handle('c', 'first', { messageId: 'x' });
    const other = await host.handle('c', 'something else', { messageId: 'x' });
    expect(other).toMatchObject({ status: 422, messageId: undefined, turns: [] });
    expect(other.error).toMatch(/names another message/);
    expect((await host.handle('c', 'first', { messageId: 'x', intent: 'steer' })).status).toBe(422);
    expect((await host.handle('c', 'hi', { messageId: 'a b/c' })).status).toBe(400);
    expect((await host.handle('c', 'hi', { messageId: '' })).status).toBe(400);
    const leaked = await host.handle('c', 'hi', { messageId: `id-${secret}` });
    expect(leaked.status).toBe(400);
    expect(JSON.stringify(leaked)).not.toContain(secret);
    expect(received(await host.events('c'))).toEqual(['x']);
    await host.close();
  });

  it('ids are per conversation: the same id in another conversation is another message', async () => {
    const model = new ScriptedModelClient([reply('for a'), reply('for b')]);
    const host = new AgentHost({ config: defaultHostConfig(), store: new MemoryEventStore(), model });
    expect((await host.handle('a', 'hi', { messageId: 'same' })).reply).toBe('for a');
    expect((await host.handle('b', 'hi', { messageId: 'same' })).reply).toBe('for b');
    await host.close();
  });
});
