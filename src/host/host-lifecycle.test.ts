/**
 * The host over time: idle sessions are evicted within the configured bound and
 * reopened from the store on demand; the recovery sweep at start closes every turn
 * a crash left open (NOT_RUN for a STATEFUL call that never started); a halted
 * host writes nothing more and a new host recovers what it left.
 */
import { describe, expect, it } from 'vitest';
import { reply } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { SupportBackend } from '../../scenarios/example-agent/backend.ts';
import { supportTools } from '../../scenarios/example-agent/tools.ts';
import { GatedModel, userTexts } from '../../test/support/gated-model.ts';
import { VirtualClock } from '../harness/virtual-clock.ts';
import { EventLog, toRecord, type LogEvent, isKnown, type ModelClient } from '../kernel/index.ts';
import { MemoryEventStore } from '../stores/memory-store.ts';
import { defaultHostConfig, type HostConfig } from './config.ts';
import { AgentHost } from './host.ts';
import { CollectingExporter } from './trace-export.ts';

function config(sessions: Partial<HostConfig['sessions']>): HostConfig {
  const base = defaultHostConfig();
  return { ...base, sessions: { ...base.sessions, ...sessions } };
}

function echo(): ScriptedModelClient {
  return new ScriptedModelClient([], { keepRequests: true, onExhausted: (request) => reply(`seen ${userTexts(request).join(' | ')}`) });
}

describe('idle sessions', () => {
  it('beyond sessions.maxIdle the least recently used are closed, and reopened from the store with their history', async () => {
    const store = new MemoryEventStore();
    const agent = new AgentHost({ config: config({ maxIdle: 2 }), store, model: echo() });
    for (const id of ['a', 'b', 'c', 'd', 'e']) expect((await agent.handle(id, `hello ${id}`)).status).toBe(200);
    await agent.idle(); // a request is answered when its turn closes; the host lets go of the conversation just after
    expect(agent.stats()).toEqual({ open: 2, idle: 2, busy: 0 });

    // "a" was closed; its next message reopens it from the store, history intact.
    const again = await agent.handle('a', 'again');
    expect(again.reply).toBe('seen hello a | again');
    await agent.idle();
    expect(agent.stats().open).toBe(2);
    await agent.close();
  });

  it('maxIdle 0 keeps nothing open once answered', async () => {
    const agent = new AgentHost({ config: config({ maxIdle: 0 }), store: new MemoryEventStore(), model: echo() });
    await Promise.all(['a', 'b', 'c'].map((id) => agent.handle(id, 'hi')));
    await agent.idle();
    expect(agent.stats()).toEqual({ open: 0, idle: 0, busy: 0 });
    expect((await agent.handle('b', 'more')).reply).toBe('seen hi | more');
    await agent.close();
  });

  it('a session idle for sessions.idleTimeoutMs is closed (on the host clock)', async () => {
    const clock = new VirtualClock(1_000);
    const agent = new AgentHost({ config: config({ maxIdle: 100, idleTimeoutMs: 60_000 }), store: new MemoryEventStore(), model: echo(), clock });
    const say = async (id: string) => {
      await agent.handle(id, 'hi');
      await agent.idle();
    };
    await say('old');
    await clock.advance(59_000);
    await say('recent');
    expect(agent.stats().idle).toBe(2);
    await clock.advance(2_000);
    await say('new');
    expect(agent.stats().idle).toBe(2); // "old" expired; "recent" has 59 s to go
    await clock.advance(59_000);
    await say('newest');
    expect(agent.stats().idle).toBe(2); // "recent" expired
    await agent.close();
  });

  it('a busy conversation is never evicted, and idle() waits for it', async () => {
    const model = new GatedModel();
    const agent = new AgentHost({ config: config({ maxIdle: 0 }), store: new MemoryEventStore(), model });
    const pending = agent.handle('busy', 'long question');
    const call = await model.nth(0);
    expect(agent.isBusy('busy')).toBe(true);
    expect(agent.stats()).toEqual({ open: 1, idle: 0, busy: 1 });
    let idle = false;
    const waited = agent.idle().then(() => (idle = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(idle).toBe(false);
    call.answer(reply('done'));
    await waited;
    expect((await pending).reply).toBe('done');
    expect(agent.isBusy('busy')).toBe(false);
    expect(agent.stats().open).toBe(0);
    await agent.close();
  });
});

/** A conversation a dead process left mid-turn: the model asked for `issue_refund` calls; `started` had their write-ahead record stored. */
async function leftOpen(store: MemoryEventStore, conversationId: string, calls: { id: string; started: boolean }[]): Promise<void> {
  const dead = new EventLog({ now: () => 0 });
  dead.append('inbox.received', { id: `${conversationId}-m0`, intent: 'follow_up', text: 'Refund ORD-1001', source: 'user' });
  dead.append('turn.opened', { turn: 0, trigger: `${conversationId}-m0` });
  dead.append('user.message', { turn: 0, id: `${conversationId}-m0`, intent: 'follow_up', text: 'Refund ORD-1001' });
  dead.append('prompt.assembled', { system: 's', fragments: [] });
  dead.append('tools.declared', { tools: [] });
  dead.append('model.request', { turn: 0, step: 1, attempt: 1, client: 'x', model: 'm', upTo: 3, prompt: 3, tools: 4, maxTokens: 10 });
  dead.append('model.result', { turn: 0, step: 1, attempt: 1, result: { type: 'tool_use', calls: calls.length } });
  const args = { order_id: 'ORD-1001', amount: 20, reason: 'late' };
  dead.append('assistant.message', { turn: 0, step: 1, content: calls.map((c) => ({ type: 'tool_call' as const, id: c.id, name: 'issue_refund', args })) });
  for (const c of calls.filter((c) => c.started)) {
    dead.append('tool.started', { turn: 0, step: 1, callId: c.id, name: 'issue_refund', args, sideEffect: 'STATEFUL', attempt: 1 });
  }
  await store.append(conversationId, dead.events.map(toRecord));
}

function results(events: readonly unknown[]) {
  return (events as LogEvent[])
    .filter((e) => isKnown(e) && e.type === 'tool.result')
    .map((e) => e.payload as { callId: string; status: string; error?: { error_code: string } });
}

describe('recoverAll: the sweep at start', () => {
  it('closes every turn a crash left open without a message arriving; a STATEFUL call with no start record is NOT_RUN, one with a start unknown; nothing runs', async () => {
    const store = new MemoryEventStore();
    await leftOpen(store, 'one', [{ id: 'r1', started: true }]);
    await leftOpen(store, 'two', [
      { id: 'r2', started: false },
      { id: 'r3', started: true },
    ]);
    const clean = new AgentHost({ config: defaultHostConfig(), store, model: echo() });
    await clean.handle('three', 'a finished conversation');
    await clean.idle();

    const reopened = store;
    const backend = new SupportBackend();
    const model = echo();
    const agent = new AgentHost({ config: defaultHostConfig(), store: reopened, model, tools: supportTools(backend) });
    const sweep = await agent.recoverAll();
    expect(sweep.conversations).toBe(3);
    expect(sweep.busy).toEqual([]);
    expect(sweep.failed).toEqual([]);
    expect(sweep.recovered.map((r) => [r.conversationId, r.turn, r.unknownCallIds, r.notRunCallIds])).toEqual([
      ['one', 0, ['r1'], []],
      ['two', 0, ['r3'], ['r2']],
    ]);
    expect(model.calls).toBe(0);
    expect(backend.executed('issue_refund')).toBe(0);

    // It is in the store now, not only in memory.
    const two = await reopened.read('two');
    expect(results(two.map((r) => ({ ...r, opaque: false })) as never)).toEqual([
      expect.objectContaining({ callId: 'r2', status: 'failed', error: expect.objectContaining({ error_code: 'NOT_RUN' }) }),
      expect.objectContaining({ callId: 'r3', status: 'unknown', error: expect.objectContaining({ error_code: 'INTERRUPTED' }) }),
    ]);
    expect(two.at(-1)).toMatchObject({ type: 'turn.closed', payload: { outcome: { kind: 'interrupted' }, recovered: true } });
    // A second sweep finds nothing.
    expect((await agent.recoverAll()).recovered).toEqual([]);
    await agent.close();
  });

  it('exports each recovered turn as a trace: interrupted, recovered, a tool span per call it settled (probe 16, F3)', async () => {
    const store = new MemoryEventStore();
    await leftOpen(store, 'two', [
      { id: 'r2', started: false },
      { id: 'r3', started: true },
    ]);
    const exporter = new CollectingExporter();
    const agent = new AgentHost({ config: defaultHostConfig(), store, model: echo(), tools: supportTools(new SupportBackend()), exporter });
    await agent.recoverAll();
    expect(exporter.traces).toHaveLength(1);
    const [trace] = exporter.traces;
    expect(trace!.traceId).toBe('two:0');
    expect(trace!.violations).toEqual([]);
    const shape = trace!.spans.map((s) => [s.kind, s.name, s.status, s.attributes.callId ?? null, s.attributes.status ?? null, s.attributes.errorCode ?? null]);
    expect(shape).toEqual([
      ['turn', 'turn 0', 'ok', null, null, null],
      ['tool', 'issue_refund', 'error', 'r2', 'failed', 'NOT_RUN'],
      ['tool', 'issue_refund', 'cancelled', 'r3', 'unknown', 'INTERRUPTED'],
    ]);
    expect(trace!.spans[0]!.attributes).toMatchObject({ turn: 0, outcome: 'interrupted', recovered: true, cause: 'crash', toolCalls: 1 });
    expect(trace!.spans[2]!.attributes).toMatchObject({ sideEffect: 'STATEFUL', args: JSON.stringify({ order_id: 'ORD-1001', amount: 20, reason: 'late' }) });
    // Nothing left to recover: nothing exported again, and the next turn is traced by its loop as usual.
    await agent.recoverAll();
    await agent.handle('two', 'and now?');
    expect(exporter.traces.map((t) => t.traceId)).toEqual(['two:0', 'two:1']);
    await agent.close();
  });

  it('does not export a turn twice: one the store refused to close was traced by its own loop, its recovery is not', async () => {
    let armed = true;
    let refuse = false;
    const store = new MemoryEventStore({
      faults: {
        beforeAppend: (_id, records) => {
          // From the first model request's write on, until the test lets go: the turn's close is never stored.
          if (armed && records.some((r) => r.type === 'model.request')) [armed, refuse] = [false, true];
          if (refuse) throw new Error('disk full');
        },
      },
    });
    const exporter = new CollectingExporter();
    const agent = new AgentHost({ config: defaultHostConfig(), store, model: echo(), exporter });
    expect((await agent.handle('c', 'first')).status).not.toBe(200);
    refuse = false;
    const open = await store.read('c');
    expect(open.some((r) => r.type === 'turn.closed')).toBe(false); // the store holds the turn open
    await agent.handle('c', 'second');
    const closes = (await store.read('c')).filter((r) => r.type === 'turn.closed').map((r) => r.payload);
    expect(closes[0]).toMatchObject({ turn: 0, outcome: { kind: 'interrupted', cause: 'store' }, recovered: true });
    expect(exporter.traces.map((t) => [t.traceId, t.spans[0]!.attributes.outcome])).toEqual([
      ['c:0', 'failed{persistence}'],
      ['c:1', 'replied'], // the first message, returned to the inbox by recovery
      ['c:2', 'replied'],
    ]);
    await agent.close();
  });

  it('does not touch a conversation whose lock another host holds (a live turn): it is counted busy', async () => {
    const store = new MemoryEventStore();
    const model = new GatedModel();
    const live = new AgentHost({ config: defaultHostConfig(), store, model });
    const pending = live.handle('live', 'a long question');
    const call = await model.nth(0);
    const before = store.count('live');

    const starting = new AgentHost({ config: defaultHostConfig(), store, model: echo() });
    const sweep = await starting.recoverAll({ lockWaitMs: 20 });
    expect(sweep).toMatchObject({ conversations: 1, busy: ['live'], recovered: [] });
    expect(store.count('live')).toBe(before); // its open turn was not closed as interrupted
    call.answer(reply('answered by the live host'));
    expect((await pending).reply).toBe('answered by the live host');
    await live.close();
  });
});

describe('halt: a crash, for tests and the harness', () => {
  it('writes nothing after the halt; a new host on the same store recovers the open turn and answers the next message', async () => {
    const store = new MemoryEventStore();
    const model = new GatedModel();
    const first = new AgentHost({ config: defaultHostConfig(), store, model });
    const lost = first.handle('c', 'question before the crash');
    await model.nth(0);
    const stored = store.count('c');
    first.halt();
    expect((await lost).status).toBe(503);
    expect(store.count('c')).toBe(stored); // the cancel and the close never reached the store
    expect((await first.handle('c', 'after the halt')).status).toBe(503);

    const second = new AgentHost({ config: defaultHostConfig(), store, model: echo() as ModelClient });
    const sweep = await second.recoverAll();
    expect(sweep.recovered).toMatchObject([{ conversationId: 'c', turn: 0, returnedIds: [expect.any(String)] }]);
    const next = await second.handle('c', 'anyone?');
    // The message the crash interrupted went back to the inbox: turn 1 answers it, turn 2 the new one.
    expect(next).toMatchObject({ reply: 'seen question before the crash | anyone?', turns: [{ turn: 2 }] });
    const replies = (await second.events('c')).flatMap((e) =>
      isKnown(e) && e.type === 'assistant.message' ? [(e as LogEvent & { type: 'assistant.message' }).payload.turn] : [],
    );
    expect(replies).toEqual([1, 2]);
    await second.close();
  });
});
