/**
 * Following a conversation through the host: stored events first, then each new
 * one as soon as it is stored — a streamed delta while the model call is still
 * open — ending when the host's work for the conversation ends; never a gap or a
 * repeat, every event redacted.
 */
import { describe, expect, it } from 'vitest';
import { reply } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { GatedModel } from '../../test/support/gated-model.ts';
import type { AnyEvent, ModelClient } from '../kernel/index.ts';
import { MemoryEventStore } from '../stores/memory-store.ts';
import { defaultHostConfig } from './config.ts';
import { FollowError } from './follow.ts';
import { AgentHost } from './host.ts';

function hostOn(store: MemoryEventStore, model: ModelClient, secrets: string[] = []) {
  const prefix = Math.random().toString(36).slice(2, 8);
  let ids = 0;
  return new AgentHost({ config: defaultHostConfig(), store, model, newId: () => `${prefix}-${ids++}`, secrets });
}

async function collect(events: AsyncIterable<AnyEvent>): Promise<AnyEvent[]> {
  const out: AnyEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('AgentHost.follow', () => {
  it('a finished conversation: its stored events from the seq asked for, then the end', async () => {
    const store = new MemoryEventStore();
    const host = hostOn(store, new ScriptedModelClient([reply('One.'), reply('Two.')]));
    await host.handle('c1', 'first');
    await host.handle('c1', 'second');
    const stored = await host.events('c1');
    expect((await collect(await host.follow('c1'))).map((e) => e.seq)).toEqual(stored.map((e) => e.seq));
    expect((await collect(await host.follow('c1', { from: 7 }))).map((e) => e.seq)).toEqual(stored.slice(7).map((e) => e.seq));
    expect(await collect(await host.follow('c1', { from: stored.length }))).toEqual([]); // caught up: nothing, and done
    await host.close();
  });

  it('refuses a seq past the end, a bad seq and a bad conversation id', async () => {
    const host = hostOn(new MemoryEventStore(), new ScriptedModelClient([reply('One.')]));
    await host.handle('c1', 'first');
    const count = (await host.events('c1')).length;
    await expect(host.follow('c1', { from: count + 1 })).rejects.toThrow(FollowError);
    await expect(host.follow('c1', { from: count + 1 })).rejects.toThrow(`from ${count + 1}: conversation "c1" has fewer events (seq ${count} is not stored)`);
    await expect(host.follow('c1', { from: -1 })).rejects.toThrow('from must be a seq (a non-negative integer), got -1');
    await expect(host.follow('no such/id')).rejects.toThrow(/invalid conversation id/);
    await host.close();
  });

  it('a running turn: a delta streamed while the model call is open arrives before the call ends; the iterable ends with the work', async () => {
    const model = new GatedModel('anthropic:claude-sonnet-4-6');
    const host = hostOn(new MemoryEventStore(), model);
    const answered = host.handle('c1', 'hello');
    const call = await model.nth(0);
    const events = (await host.follow('c1'))[Symbol.asyncIterator]();
    const seen: AnyEvent[] = [];
    const until = async (type: string) => {
      for (;;) {
        const next = await events.next();
        if (next.done) throw new Error(`the follower ended before a ${type} event`);
        seen.push(next.value);
        if (next.value.type === type) return next.value;
      }
    };
    await until('model.request'); // stored before the call, though the loop had not written it yet
    // Streamed text is stored a few hundred characters behind the stream (redaction across chunks holds back a suffix).
    const streamed = `Hel${'lo, and welcome back. '.repeat(20)}`;
    call.stream({ kind: 'text', text: streamed });
    const delta = await until('model.delta');
    const text = (delta.payload as { delta: { kind: string; text: string } }).delta.text;
    expect(text.length).toBeGreaterThan(0);
    expect(streamed.startsWith(text)).toBe(true);
    expect(call.settled).toBe(false); // live: the call is still open
    call.answer(reply('Hello.'));
    for (;;) {
      const next = await events.next();
      if (next.done) break;
      seen.push(next.value);
    }
    expect((await answered).reply).toBe('Hello.');
    const stored = await host.events('c1');
    expect(seen.map((e) => e.seq)).toEqual(stored.map((e) => e.seq)); // every event once, in order
    expect(seen.map((e) => e.type)).toEqual(stored.map((e) => e.type));
    expect(seen.at(-1)!.type).toBe('turn.closed');
    await host.close();
  });

  it('keepOpen follows later turns until the caller stops', async () => {
    const host = hostOn(new MemoryEventStore(), new ScriptedModelClient([reply('One.'), reply('Two.')]));
    const stop = new AbortController();
    const events = (await host.follow('c1', { keepOpen: true, signal: stop.signal }))[Symbol.asyncIterator]();
    const closed: number[] = [];
    const reading = (async () => {
      for (let next = await events.next(); !next.done; next = await events.next()) {
        if (next.value.type === 'turn.closed') closed.push(next.value.seq);
        if (closed.length === 2) stop.abort();
      }
    })();
    await host.handle('c1', 'first');
    await host.handle('c1', 'second');
    await reading;
    const stored = await host.events('c1');
    expect(closed).toEqual(stored.filter((e) => e.type === 'turn.closed').map((e) => e.seq));
    await host.close();
  });

  it('events pass the redactor: a value configured as secret after it was stored is not followed out', async () => {
    const store = new MemoryEventStore();
    const TOKEN = 'internal-ticket-token-61fd02';
    const before = hostOn(store, new ScriptedModelClient([reply(`Your token is ${TOKEN}.`)]));
    await before.handle('c1', `token ${TOKEN}`); // (not closed: closing a host closes its store)
    expect(JSON.stringify(await store.read('c1'))).toContain(TOKEN); // stored before anyone said it was secret

    const after = hostOn(store, new ScriptedModelClient([]), [TOKEN]);
    const followed = JSON.stringify(await collect(await after.follow('c1')));
    expect(followed).toContain('[REDACTED]');
    expect(followed).not.toContain(TOKEN);
    await after.close();
  });
});
