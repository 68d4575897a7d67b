/**
 * Following a conversation over HTTP with a real client (Node's fetch reading the
 * SSE stream): connect mid-turn, disconnect while the turn runs on, reconnect with
 * `Last-Event-ID`, and receive every stored event exactly once, in order, with no
 * gap — each redacted — then an `end` message when the turn is over.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { call, reply, toolUse } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { SupportBackend } from '../../scenarios/example-agent/backend.ts';
import { supportTools } from '../../scenarios/example-agent/tools.ts';
import { GatedModel } from '../../test/support/gated-model.ts';
import { type SseMessage, sseMessages } from '../../test/support/sse-client.ts';
import { InputError, LogReadError, type ModelClient } from '../kernel/index.ts';
import { type EventStore, StoreError } from '../stores/event-store.ts';
import { MemoryEventStore } from '../stores/memory-store.ts';
import { SqliteEventStore } from '../stores/sqlite-store.ts';
import { defaultHostConfig } from './config.ts';
import { AgentHost } from './host.ts';
import { eventsHandler, type FollowableHost } from './sse.ts';

const TOKEN = 'internal-ticket-token-93be11';
let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

function hostOn(store: EventStore, model: ModelClient, secrets: string[] = []) {
  const prefix = Math.random().toString(36).slice(2, 8);
  let ids = 0;
  return new AgentHost({ config: defaultHostConfig(), store, model, tools: supportTools(new SupportBackend()), newId: () => `${prefix}-${ids++}`, secrets });
}

async function serve(host: AgentHost): Promise<string> {
  server = createServer(eventsHandler(host, { heartbeatMs: 0 }));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Reads messages until one satisfies `stop` (kept too), or the stream ends. */
async function readUntil(messages: AsyncGenerator<SseMessage>, into: SseMessage[], stop: (m: SseMessage) => boolean): Promise<void> {
  for (;;) {
    const next = await messages.next();
    if (next.done) return;
    into.push(next.value);
    if (stop(next.value)) return;
  }
}

/** A stored delta starting with `text`. Streamed text is stored a few hundred characters behind the stream (redaction across chunks holds back a suffix), so the deltas streamed here are long. */
const isDelta = (text: string) => (m: SseMessage) =>
  m.event === 'model.delta' && ((JSON.parse(m.data) as { payload: { delta: { text?: string } } }).payload.delta.text ?? '').startsWith(text);
const long = (start: string) => `${start} ${'while the system looks into it, '.repeat(16)}`;

describe('GET /conversations/{id}/events (SSE)', () => {
  it('disconnect mid-turn, reconnect with Last-Event-ID: every event exactly once, in order, redacted, then end', async () => {
    const store = new MemoryEventStore();
    // Turn 0, stored before TOKEN was configured as a secret: the stream must not carry it.
    await hostOn(store, new ScriptedModelClient([reply(`Noted: ${TOKEN}.`)])).handle('c1', `remember ${TOKEN}`);

    const model = new GatedModel('anthropic:claude-sonnet-4-6');
    const host = hostOn(store, model, [TOKEN]);
    const url = await serve(host);
    const answered = host.handle('c1', 'Where is ORD-1001?');
    const first = await model.nth(0);

    // Connection 1: from the start, until a delta of the running model call; then the client goes away.
    const drop = new AbortController();
    const one = await fetch(`${url}/conversations/c1/events`, { signal: drop.signal });
    expect(one.status).toBe(200);
    expect(one.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const received1: SseMessage[] = [];
    const messages1 = sseMessages(one);
    first.stream({ kind: 'text', text: long('Let me check') });
    await readUntil(messages1, received1, isDelta('Let me check'));
    expect(first.settled).toBe(false); // mid-turn, mid-call
    drop.abort();
    await messages1.return(undefined).catch(() => undefined);

    // While nobody listens: the call ends in a tool call, the tool runs, the next call starts streaming.
    first.stream({ kind: 'text', text: ' the order.' });
    first.answer(toolUse([call('toolu_1', 'lookup_order', { order_id: 'ORD-1001' })], 'Let me check the order.'));
    const second = await model.nth(1);
    second.stream({ kind: 'text', text: long('It has') });

    // Connection 2: a reconnect from the last id received.
    const lastId = received1.at(-1)!.id!;
    const two = await fetch(`${url}/conversations/c1/events`, { headers: { 'last-event-id': lastId } });
    expect(two.status).toBe(200);
    const received2: SseMessage[] = [];
    const messages2 = sseMessages(two);
    await readUntil(messages2, received2, isDelta('It has'));
    second.stream({ kind: 'text', text: ' shipped.' });
    second.answer(reply('It has shipped.'));
    await readUntil(messages2, received2, (m) => m.event === 'end');
    expect((await answered).reply).toBe('It has shipped.');

    const stored = await host.events('c1');
    const events = [...received1, ...received2].filter((m) => m.event !== 'end');
    // Every stored event exactly once, in order, no gap; the reconnect resumed right after the last id.
    expect(events.map((m) => Number(m.id))).toEqual(stored.map((e) => e.seq));
    expect(Number(received2[0]!.id)).toBe(Number(lastId) + 1);
    expect(events.map((m) => m.event)).toEqual(stored.map((e) => e.type));
    expect(events.map((m) => (JSON.parse(m.data) as { seq: number }).seq)).toEqual(stored.map((e) => e.seq));
    expect(received2.at(-1)).toEqual({ id: undefined, event: 'end', data: JSON.stringify({ next: stored.length }) });
    expect(stored.filter((e) => e.type === 'turn.closed')).toHaveLength(2);
    // Redacted on the way out.
    const raw = JSON.stringify([...received1, ...received2]);
    expect(raw).not.toContain(TOKEN);
    expect(raw).toContain('[REDACTED]');
    await host.close();
  });

  it('?from starts at a seq; a bad Last-Event-ID or from, an unknown conversation position, route or method is refused clearly', async () => {
    const host = hostOn(new MemoryEventStore(), new ScriptedModelClient([reply('Hi.')]));
    await host.handle('c1', 'hello');
    const stored = await host.events('c1');
    const url = await serve(host);

    const from = await fetch(`${url}/conversations/c1/events?from=3`);
    const got: SseMessage[] = [];
    await readUntil(sseMessages(from), got, (m) => m.event === 'end');
    expect(got.map((m) => m.id ?? m.event)).toEqual([...stored.slice(3).map((e) => String(e.seq)), 'end']);

    const refused = async (path: string, init?: RequestInit) => {
      const res = await fetch(`${url}${path}`, init);
      return [res.status, (await res.text()).trim()];
    };
    expect(await refused('/conversations/c1/events', { headers: { 'last-event-id': 'abc' } })).toEqual([
      400,
      'Last-Event-ID "abc" is not a seq: it must be the id of the last event received',
    ]);
    expect(await refused('/conversations/c1/events?from=-2')).toEqual([400, 'from "-2" is not a seq (a non-negative integer)']);
    expect(await refused(`/conversations/c1/events?from=${stored.length + 5}`)).toEqual([
      400,
      `from ${stored.length + 5}: conversation "c1" has fewer events (seq ${stored.length + 4} is not stored)`,
    ]);
    expect(await refused('/conversations/bad%20id/events')).toEqual([400, 'invalid conversation id "bad id"']);
    expect(await refused('/elsewhere')).toEqual([404, 'not found: GET /conversations/{id}/events']);
    expect(await refused('/conversations/c1/events', { method: 'POST' })).toEqual([405, 'POST is not allowed: GET /conversations/{id}/events']);
    await host.close();
  });

  it("what follow throws before the stream starts: the client's own error 400, a store or a record that does not decode 500", async () => {
    const answers: [number, string][] = [];
    for (const error of [
      new InputError('from 9 is past the end of conversation c1 (3 events)'),
      new StoreError('the store is closed'),
      new LogReadError('conversation c1', 2, 'not an event: payload.text must be a string'),
      new TypeError('a bug'),
    ]) {
      const followable: FollowableHost = { follow: () => Promise.reject(error), redact: (text: string) => text.replaceAll(TOKEN, '[redacted]') };
      server = createServer(eventsHandler(followable, { heartbeatMs: 0 }));
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/conversations/c1/events`);
      answers.push([res.status, (await res.text()).trim()]);
      server.closeAllConnections();
      await new Promise((resolve) => server!.close(resolve));
      server = undefined;
    }
    expect(answers).toEqual([
      [400, 'from 9 is past the end of conversation c1 (3 events)'],
      [503, 'the store is closed'],
      [500, 'conversation c1 record seq 2: not an event: payload.text must be a string'],
      [500, 'a bug'],
    ]);
  });

  it('a stored log with a hole is a server fault: SSE answers 500 naming the gap, as a POST does', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'loopgate-sse-hole-'));
    try {
      const path = join(folder, 'agent.db');
      const first = new SqliteEventStore(path);
      const writer = hostOn(first, new ScriptedModelClient([reply('Hi.')]));
      await writer.handle('c1', 'hello');
      await writer.close();
      await first.close();
      const raw = new DatabaseSync(path);
      raw.prepare('DELETE FROM events WHERE conversation = ? AND seq = ?').run('c1', 2);
      raw.close();

      const store = new SqliteEventStore(path);
      const host = hostOn(store, new ScriptedModelClient([reply('Hi again.')]));
      const url = await serve(host);
      const res = await fetch(`${url}/conversations/c1/events`);
      const body = (await res.text()).trim();
      expect([res.status, body]).toEqual([500, expect.stringContaining('record seq 2 is corrupt: the record is missing')]);
      expect(await host.handle('c1', 'still there?')).toMatchObject({ status: 500 });
      await host.close();
      await store.close();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
