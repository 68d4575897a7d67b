/**
 * The production host on real parts: SQLite through node:sqlite, the real loop,
 * the example agent's tools, a scripted model.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, reply, toolUse, transportError } from '../../providers/fake/results.ts';
import { ScriptedModelClient, type ScriptItem } from '../../providers/fake/scripted.ts';
import { SupportBackend } from '../../scenarios/example-agent/backend.ts';
import { supportTools } from '../../scenarios/example-agent/tools.ts';
import { renderMessages } from '../../test/support/world.ts';
import { EventLog } from '../kernel/log/event-log.ts';
import { toRecord } from '../kernel/log/envelope.ts';
import { MemoryEventStore } from '../stores/memory-store.ts';
import { SqliteEventStore } from '../stores/sqlite-store.ts';
import { defaultHostConfig, parseHostConfig, type HostConfig } from './config.ts';
import { AgentHost } from './host.ts';
import { JsonlFileExporter } from './trace-export.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loopgate-host-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function config(overrides: Partial<HostConfig> = {}): HostConfig {
  return { ...defaultHostConfig(), ...overrides };
}

function host(
  script: ScriptItem[],
  options: { store?: SqliteEventStore | MemoryEventStore; backend?: SupportBackend; config?: HostConfig; secrets?: string[] } = {},
) {
  const store = options.store ?? new SqliteEventStore(join(dir, 'agent.db'));
  const model = new ScriptedModelClient(script);
  const backend = options.backend ?? new SupportBackend();
  let ids = 0;
  const agent = new AgentHost({
    config: options.config ?? config(),
    store,
    model,
    tools: supportTools(backend),
    exporter: new JsonlFileExporter(join(dir, 'traces.jsonl')),
    newId: () => `m${ids++}-${Math.random().toString(36).slice(2, 8)}`,
    ...(options.secrets ? { secrets: options.secrets } : {}),
  });
  return { agent, store, model, backend };
}

describe('AgentHost', () => {
  it('answers a message, persists every event, and a new host on the same store continues the conversation', async () => {
    const first = host([toolUse([call('c1', 'lookup_order', { order_id: 'ORD-1002' })]), reply('It has shipped.')]);
    const envelope = await first.agent.handle('conv-1', 'Where is ORD-1002?');
    expect(envelope).toMatchObject({ status: 200, reply: 'It has shipped.', turns: [{ outcome: 'replied', steps: 2, toolCalls: 1 }] });
    await first.agent.close();

    const second = host([reply('You are welcome.')]);
    const again = await second.agent.handle('conv-1', 'Thanks!');
    expect(again.reply).toBe('You are welcome.');
    expect(renderMessages(second.model.requests[0]!.messages)).toEqual([
      'user: Where is ORD-1002?',
      'assistant: call lookup_order#c1 {"order_id":"ORD-1002"}',
      expect.stringMatching(/^user: result#c1 ok: /),
      'assistant: It has shipped.',
      'user: Thanks!',
    ]);
    const events = await second.agent.events('conv-1');
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(events.filter((e) => e.type === 'turn.closed')).toHaveLength(2);
    await second.agent.close();
  });

  it('serializes turns per conversation (FIFO) and runs different conversations independently', async () => {
    const store = new MemoryEventStore();
    const log: string[] = [];
    const slowReply =
      (text: string): ScriptItem =>
      (request) => {
        log.push(`start ${request.messages.at(-1)!.content[0]!.type === 'text' ? (request.messages.at(-1)!.content[0] as { text: string }).text : ''}`);
        return { result: reply(text), latencyMs: 20 };
      };
    const { agent } = host([slowReply('a1'), slowReply('a2'), slowReply('a3')], { store });
    const [one, two, three] = await Promise.all([agent.handle('c', 'q1'), agent.handle('c', 'q2'), agent.handle('c', 'q3')]);
    expect([one.reply, two.reply, three.reply]).toEqual(['a1', 'a2', 'a3']);
    expect(log).toEqual(['start q1', 'start q2', 'start q3']);
    const turns = (await agent.events('c')).filter((e) => e.type === 'turn.opened' || e.type === 'turn.closed').map((e) => e.type);
    expect(turns).toEqual(['turn.opened', 'turn.closed', 'turn.opened', 'turn.closed', 'turn.opened', 'turn.closed']);
    await agent.close();
  });

  it('after a crash mid-turn: the open turn closes as interrupted, the STATEFUL call is never re-run, and the model learns it may have happened', async () => {
    // A process wrote the write-ahead record of a refund, then died before its result.
    const store = new SqliteEventStore(join(dir, 'crash.db'));
    const dead = new EventLog({ now: () => 0 });
    dead.append('inbox.received', { id: 'm0', intent: 'follow_up', text: 'Refund ORD-1001', source: 'user' });
    dead.append('turn.opened', { turn: 0, trigger: 'm0' });
    dead.append('user.message', { turn: 0, id: 'm0', intent: 'follow_up', text: 'Refund ORD-1001' });
    dead.append('prompt.assembled', { system: 's', fragments: [] });
    dead.append('tools.declared', { tools: [] });
    dead.append('model.request', { turn: 0, step: 1, attempt: 1, client: 'x', model: 'm', upTo: 3, prompt: 3, tools: 4, maxTokens: 10 });
    dead.append('model.result', { turn: 0, step: 1, attempt: 1, result: { type: 'tool_use', calls: 1 } });
    dead.append('assistant.message', {
      turn: 0,
      step: 1,
      content: [{ type: 'tool_call', id: 'r1', name: 'issue_refund', args: { order_id: 'ORD-1001', amount: 20, reason: 'late' } }],
    });
    dead.append('tool.started', {
      turn: 0,
      step: 1,
      callId: 'r1',
      name: 'issue_refund',
      args: { order_id: 'ORD-1001', amount: 20, reason: 'late' },
      sideEffect: 'STATEFUL',
      attempt: 1,
    });
    await store.append('c', dead.events.map(toRecord));

    const backend = new SupportBackend();
    const { agent, model } = host([reply('Let me check whether the refund went through before doing anything.')], { store, backend });
    const envelope = await agent.handle('c', 'Did my refund work?');
    expect(envelope.reply).toMatch(/check whether the refund went through/);
    expect(backend.executed('issue_refund')).toBe(0); // never re-run
    const events = await agent.events('c');
    const closed = events.filter((e) => e.type === 'turn.closed').map((e) => (e.payload as { outcome: { kind: string } }).outcome.kind);
    expect(closed).toEqual(['interrupted', 'replied']);
    const seen = renderMessages(model.requests[0]!.messages);
    expect(seen[0]).toBe('user: Refund ORD-1001');
    expect(seen[1]).toBe('assistant: call issue_refund#r1 {"order_id":"ORD-1001","amount":20,"reason":"late"}');
    expect(seen[2]).toMatch(/^user: result#r1 unknown: .*interrupted.*\| \[This turn was interrupted because the process stopped.*\| Did my refund work\?$/s);
    await agent.close();
  });

  it('a store write failure answers 503, is never swallowed, and the conversation recovers from the store next time', async () => {
    const store = new MemoryEventStore();
    const { agent } = host([reply('first'), reply('hello again, after recovery'), reply('yes, I am here')], { store });
    let appends = 0;
    const original = store.append.bind(store);
    store.append = async (id, records) => {
      appends++;
      if (appends === 3) throw new Error('disk full'); // the flush after the model's reply
      return original(id, records);
    };
    const failed = await agent.handle('c', 'hello');
    expect(failed.status).toBe(503);
    expect(failed.turns[0]).toMatchObject({ outcome: 'failed{persistence}', detail: expect.stringMatching(/disk full/) });
    // After a failed write the host writes nothing more from that log: the store holds the message and the open turn only.
    expect((await agent.events('c')).map((e) => e.type)).toEqual(['inbox.received', 'turn.opened', 'user.message']);

    const next = await agent.handle('c', 'are you there?');
    expect(next.reply).toBe('yes, I am here');
    const events = await agent.events('c');
    const closed = events.filter((e) => e.type === 'turn.closed').map((e) => (e.payload as { outcome: { kind: string } }).outcome.kind);
    // Recovery closed the failed turn (the store never saw it close) and gave "hello" back: a turn answered it, then the new message its own.
    expect(closed).toEqual(['interrupted', 'replied', 'replied']);
    expect(events.find((e) => e.type === 'inbox.returned')!.payload).toMatchObject({ ids: [failed.messageId] });
    await agent.close();
  });

  it('keeps secrets out of the log and the exported trace', async () => {
    const secret = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789';
    const { agent } = host([reply(`Your key is ${secret}`)], { secrets: [secret] });
    const envelope = await agent.handle('c', `my key is ${secret}, please refund ORD-1001`);
    expect(envelope.reply).toBe('Your key is [REDACTED]'); // the response too (invariant 15: nothing returned carries it)
    expect(JSON.stringify(envelope)).not.toContain(secret);
    const stored = JSON.stringify(await agent.events('c'));
    expect(stored).not.toContain(secret);
    expect(stored).toContain('my key is [REDACTED], please refund ORD-1001');
    expect(readFileSync(join(dir, 'traces.jsonl'), 'utf8')).not.toContain(secret);
    await agent.close();
  });

  it("keeps the key out of the envelope when the provider's auth error echoes it (turns[].detail), and out of a streamed reply split across deltas", async () => {
    const secret = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789';
    const half = secret.length / 2;
    const { agent } = host(
      [
        {
          result: reply(`Key ${secret} noted.`),
          deltas: [
            { kind: 'text', text: `Key ${secret.slice(0, half)}` },
            { kind: 'text', text: `${secret.slice(half)} noted.` },
          ],
        },
        transportError('auth', { status: 401, message: `invalid x-api-key: ${secret}` }),
      ],
      { secrets: [secret] },
    );
    const replied = await agent.handle('c', 'hello');
    expect(replied.reply).toBe('Key [REDACTED] noted.');
    const failed = await agent.handle('c', 'again');
    expect(failed.status).toBe(502);
    expect(failed.turns[0]!.detail).toBe('invalid x-api-key: [REDACTED]');
    const stored = await agent.events('c');
    const deltas = stored.filter((e) => e.type === 'model.delta').map((e) => (e.payload as { delta: { text?: string } }).delta.text ?? '');
    expect(deltas.join('')).toBe('Key [REDACTED] noted.');
    expect(JSON.stringify([replied, failed, stored])).not.toContain(secret.slice(8));
    await agent.close();
  });

  it('refuses a conversation id that holds a secret (configured or key-shaped): 400, redacted, nothing stored, traced or followed', async () => {
    const secret = 'opstok-9f3a77c2e1d4b5a6';
    const { agent, store } = host([reply('never'), reply('never')], { secrets: [secret] });
    for (const id of [secret, `user-${secret}`, 'ghp_abcdefghijklmnopqrstuvwxyz0123456789']) {
      const envelope = await agent.handle(id, 'hi');
      expect(envelope.status).toBe(400);
      expect(envelope.error).toMatch(/^the conversation id holds a secret/);
      expect(JSON.stringify(envelope)).not.toContain(id);
      await expect(agent.follow(id)).rejects.toThrow(/the conversation id holds a secret/);
    }
    expect(await store.listConversations()).toEqual([]);
    expect(readFileSync(join(dir, 'traces.jsonl'), { encoding: 'utf8', flag: 'a+' })).not.toContain(secret);
    await agent.close();
  });

  it('refuses a bad conversation id with 400 and names it', async () => {
    const { agent } = host([]);
    const envelope = await agent.handle('../etc/passwd', 'hi');
    expect(envelope.status).toBe(400);
    expect(envelope.error).toMatch(/invalid conversation id "..\/etc\/passwd"/);
    await agent.close();
  });

  it('a corrupt stored record is reported with its seq, and nothing is written over it', async () => {
    const store = new MemoryEventStore();
    await store.append('c', [{ seq: 0, type: 'memory.recalled', v: 1, at: 0, payload: {}, ignorable: false }]);
    const { agent } = host([reply('never')], { store });
    const envelope = await agent.handle('c', 'hi');
    expect(envelope.status).toBe(500);
    expect(envelope.error).toMatch(/record seq 0: unknown event type "memory.recalled"/);
    expect(await store.read('c')).toHaveLength(1);
    await agent.close();
  });

  it('close() cancels a running turn as a shutdown and returns its message to the inbox', async () => {
    const store = new MemoryEventStore();
    const { agent } = host([{ result: reply('too late'), latencyMs: 60_000 }], { store });
    const pending = agent.handle('c', 'long question');
    await new Promise((r) => setTimeout(r, 20));
    await agent.close();
    const envelope = await pending;
    expect(envelope.turns[0]).toMatchObject({ outcome: 'cancelled{shutdown}', returnedToInbox: [envelope.messageId] });
  });
});

describe('host config', () => {
  it('names the file, line and key of a bad value', () => {
    expect(() => parseHostConfig('budgets:\n  maxSteps: ten\n', 'agent.yaml')).toThrow(/agent.yaml:2:\d+: budgets.maxSteps: .*number/);
  });
  it('names an unknown key', () => {
    expect(() => parseHostConfig('budgets:\n  maxStep: 3\n', 'agent.yaml')).toThrow(
      /agent.yaml:2:\d+: budgets\.maxStep: unknown key \(did you mean maxSteps\?\)/,
    );
  });
  it('names an unknown tools.mode at startup', () => {
    const store = new MemoryEventStore();
    expect(() => new AgentHost({ config: parseHostConfig('tools:\n  mode: research\n', 'agent.yaml'), store, model: new ScriptedModelClient([]) })).toThrow(
      /agent.yaml:2:9: tools.mode: "research" is not one of tools.modes/,
    );
  });
});
