import { describe, expect, it } from 'vitest';
import { decodeRecords } from '../kernel/log/decode.ts';
import { toRecord, type LogEvent } from '../kernel/log/envelope.ts';
import { EventLog } from '../kernel/log/event-log.ts';
import { project } from '../kernel/projection/projection.ts';
import { checkToolPairing } from '../kernel/projection/invariants/tool-pairing.ts';
import { recoverConversation } from './recovery.ts';

const clock = { now: () => 1_700_000_000_000 };

/** Writes a conversation the way the loop does, one event at a time. */
function conversation() {
  const log = new EventLog(clock);
  const prompt = log.append('prompt.assembled', { system: 'You are a test.', fragments: [{ id: 'identity', priority: -100 }] }).seq;
  const tools = log.append('tools.declared', { tools: [{ name: 'write_file', description: 'writes', inputSchema: { type: 'object' } }] }).seq;
  const w = {
    log,
    receive(id: string, intent: 'follow_up' | 'steer' | 'inject' = 'follow_up') {
      log.append('inbox.received', { id, intent, text: `text of ${id}`, source: 'test' });
      return w;
    },
    open(turn: number) {
      log.append('turn.opened', { turn, trigger: 'follow_up' });
      return w;
    },
    take(turn: number, id: string, intent: 'follow_up' | 'steer' | 'inject' = 'follow_up') {
      log.append('user.message', { turn, id, intent, text: `text of ${id}` });
      return w;
    },
    model(turn: number, step: number, usage = { inputTokens: 100, outputTokens: 20 }) {
      log.append('model.request', { turn, step, attempt: 0, client: 'fake', model: 'm', upTo: log.length, prompt, tools, maxTokens: 1000 });
      log.append('model.result', { turn, step, attempt: 0, result: { type: 'tool_use', usage } });
      return w;
    },
    assistant(turn: number, step: number, callIds: string[], text = 'working on it') {
      log.append('assistant.message', {
        turn,
        step,
        content: [{ type: 'text', text }, ...callIds.map((id) => ({ type: 'tool_call' as const, id, name: 'write_file', args: { path: id } }))],
      });
      return w;
    },
    started(turn: number, step: number, callId: string, attempt = 1) {
      log.append('tool.started', { turn, step, callId, name: 'write_file', args: { path: callId }, sideEffect: 'STATEFUL', attempt });
      return w;
    },
    result(turn: number, step: number, callId: string) {
      log.append('tool.result', { turn, step, callId, name: 'write_file', status: 'ok', content: 'written', durationMs: 3, attempts: 1 });
      return w;
    },
    close(turn: number, steps: number) {
      log.append('turn.closed', { turn, outcome: { kind: 'replied' }, steps, usage: { inputTokens: 0, outputTokens: 0 }, toolCalls: 0 });
      return w;
    },
  };
  return w;
}

function appendedBy(log: EventLog, from: number): LogEvent[] {
  return log.readFrom(from) as LogEvent[];
}

/** The log as a store would hand it back to a fresh process. */
function reopened(log: EventLog): EventLog {
  return new EventLog(clock, decodeRecords(log.events.map(toRecord), 'test'));
}

describe('recoverConversation', () => {
  it('does nothing on an empty log or a log whose turns all closed', () => {
    const empty = new EventLog(clock);
    expect(recoverConversation(empty)).toEqual({ recovered: false, unknownCallIds: [], notRunCallIds: [], returnedIds: [] });
    expect(empty.length).toBe(0);

    const w = conversation().receive('m1').open(0).take(0, 'm1').model(0, 0).assistant(0, 0, []).close(0, 1).receive('m2');
    const before = w.log.length;
    expect(recoverConversation(w.log).recovered).toBe(false);
    expect(w.log.length).toBe(before);
  });

  it('closes a turn that died before any model step, returning every taken message', () => {
    const w = conversation().receive('m1').receive('m2').open(0).take(0, 'm1').take(0, 'm2');
    const from = w.log.length;
    const report = recoverConversation(w.log);
    expect(report).toEqual({ recovered: true, turn: 0, unknownCallIds: [], notRunCallIds: [], returnedIds: ['m1', 'm2'], fromSeq: from });
    const added = appendedBy(w.log, from);
    expect(added.map((e) => e.type)).toEqual(['inbox.returned', 'turn.closed']);
    expect(added[0]!.payload).toMatchObject({ turn: 0, ids: ['m1', 'm2'] });
    expect(added[1]!.payload).toEqual({
      turn: 0,
      outcome: { kind: 'interrupted' },
      steps: 0,
      usage: { inputTokens: 0, outputTokens: 0 },
      toolCalls: 0,
      recovered: true,
    });
    expect(w.log.positions.openTurn).toBeUndefined();
    expect(w.log.positions.pending().map((m) => m.id)).toEqual(['m1', 'm2']);
  });

  it('gives every call without a result an unknown result, never re-running it', () => {
    const w = conversation()
      .receive('m1')
      .open(0)
      .take(0, 'm1')
      .model(0, 0)
      .assistant(0, 0, ['done', 'running', 'never-started'])
      .started(0, 0, 'done')
      .result(0, 0, 'done')
      .started(0, 0, 'running');
    const from = w.log.length;
    const report = recoverConversation(w.log);
    expect(report.unknownCallIds).toEqual(['running', 'never-started']);
    expect(report.returnedIds).toEqual([]);

    const added = appendedBy(w.log, from);
    expect(added.map((e) => e.type)).toEqual(['tool.result', 'tool.result', 'turn.closed']);
    const [running, never] = added as Array<LogEvent & { type: 'tool.result' }>;
    expect(running!.payload).toMatchObject({
      turn: 0,
      step: 0,
      callId: 'running',
      name: 'write_file',
      status: 'unknown',
      durationMs: 0,
      attempts: 1,
      error: { failed_tool: 'write_file', error_code: 'INTERRUPTED' },
    });
    expect(JSON.parse(running!.payload.content)).toMatchObject({
      error_code: 'INTERRUPTED',
      error_message: expect.stringMatching(/may or may not have taken effect/),
    });
    expect(running!.payload.error!.suggestion).toMatch(/check/);
    expect(never!.payload).toMatchObject({ callId: 'never-started', status: 'unknown', attempts: 0 });
    // Nothing was started or executed again.
    expect(added.some((e) => e.type === 'tool.started')).toBe(false);
    for (const id of ['done', 'running', 'never-started']) expect(w.log.positions.call(id)!.result).toBeDefined();
    // The calls that ran and those settled unknown (they may have run; with no level known, never-started too).
    expect(added[2]!.payload).toMatchObject({ outcome: { kind: 'interrupted' }, recovered: true, steps: 1, toolCalls: 3 });
  });

  it('a STATEFUL call with no durable start record never ran: failed / NOT_RUN, as the loop says; one with a start record stays unknown', () => {
    const w = conversation().receive('m1').open(0).take(0, 'm1').model(0, 0).assistant(0, 0, ['started', 'never-started']).started(0, 0, 'started');
    const from = w.log.length;
    const report = recoverConversation(w.log, { sideEffectOf: (name) => (name === 'write_file' ? 'STATEFUL' : undefined) });
    expect(report.unknownCallIds).toEqual(['started']);
    expect(report.notRunCallIds).toEqual(['never-started']);
    const [started, never] = appendedBy(w.log, from) as Array<LogEvent & { type: 'tool.result' }>;
    expect(started!.payload).toMatchObject({ callId: 'started', status: 'unknown', attempts: 1, error: { error_code: 'INTERRUPTED' } });
    expect(never!.payload).toMatchObject({
      callId: 'never-started',
      status: 'failed',
      attempts: 0,
      error: { failed_tool: 'write_file', error_code: 'NOT_RUN', error_message: expect.stringMatching(/never ran/) },
    });
    expect(never!.payload.content).not.toMatch(/may or may not have taken effect/);
    expect(JSON.parse(never!.payload.content)).toMatchObject({ error_code: 'NOT_RUN', suggestion: expect.stringMatching(/never ran/) });
  });

  // Recovery wrote `attempts: 1` for any started call: a retry whose start record the store holds went uncounted.
  it('counts every attempt whose start record the store holds: a retry that began is part of what may have taken effect', () => {
    const w = conversation().receive('m1').open(0).take(0, 'm1').model(0, 0).assistant(0, 0, ['retried', 'once']);
    w.started(0, 0, 'retried', 1).started(0, 0, 'retried', 2).started(0, 0, 'retried', 3).started(0, 0, 'once');
    const from = w.log.length;
    recoverConversation(w.log, { sideEffectOf: () => 'IDEMPOTENT' });
    const [retried, once] = appendedBy(w.log, from) as Array<LogEvent & { type: 'tool.result' }>;
    expect(retried!.payload).toMatchObject({ callId: 'retried', status: 'unknown', attempts: 3, error: { error_code: 'INTERRUPTED' } });
    expect(once!.payload).toMatchObject({ callId: 'once', status: 'unknown', attempts: 1 });
  });

  it('a call of a tool that is not written ahead (NONE, IDEMPOTENT) or not known may have run without a start record: unknown', () => {
    for (const level of ['NONE', 'IDEMPOTENT', undefined] as const) {
      const w = conversation().receive('m1').open(0).take(0, 'm1').model(0, 0).assistant(0, 0, ['c1']);
      const report = recoverConversation(w.log, { sideEffectOf: () => level });
      expect(report.unknownCallIds, String(level)).toEqual(['c1']);
      expect(report.notRunCallIds, String(level)).toEqual([]);
    }
  });

  it('returns only messages taken after the last assistant message, in order', () => {
    const w = conversation()
      .receive('m1')
      .open(0)
      .take(0, 'm1')
      .model(0, 0)
      .assistant(0, 0, ['c1'])
      .started(0, 0, 'c1')
      .result(0, 0, 'c1')
      .receive('s1', 'steer')
      .receive('i1', 'inject')
      .take(0, 's1', 'steer')
      .take(0, 'i1', 'inject')
      .model(0, 1);
    const report = recoverConversation(w.log);
    expect(report.returnedIds).toEqual(['s1', 'i1']);
    expect(w.log.positions.inboxState('m1')).toBe('taken');
    expect(w.log.positions.pending().map((m) => m.id)).toEqual(['s1', 'i1']);
  });

  it('does not return a message the dead process had already returned', () => {
    const w = conversation().receive('m1').receive('m2').open(0).take(0, 'm1').take(0, 'm2');
    w.log.append('inbox.returned', { turn: 0, ids: ['m1'], reason: 'cancelled before the model saw it' });
    const report = recoverConversation(w.log);
    expect(report.returnedIds).toEqual(['m2']);
    expect(w.log.positions.pending().map((m) => m.id)).toEqual(['m1', 'm2']);
  });

  it('sums steps, usage and first-attempt tool executions of the open turn only', () => {
    const w = conversation()
      .receive('m0')
      .open(0)
      .take(0, 'm0')
      .model(0, 0, { inputTokens: 999, outputTokens: 999 })
      .assistant(0, 0, ['old'])
      .started(0, 0, 'old')
      .result(0, 0, 'old')
      .close(0, 1)
      .receive('m1')
      .open(1)
      .take(1, 'm1')
      .model(1, 0, { inputTokens: 100, outputTokens: 10 })
      .assistant(1, 0, ['a', 'b'])
      .started(1, 0, 'a')
      .started(1, 0, 'a', 2)
      .result(1, 0, 'a')
      .started(1, 0, 'b');
    w.log.append('model.request', { turn: 1, step: 1, attempt: 0, client: 'fake', model: 'm', upTo: w.log.length, prompt: 0, tools: 1, maxTokens: 1000 });
    w.log.append('model.result', {
      turn: 1,
      step: 1,
      attempt: 0,
      result: { type: 'reply', usage: { inputTokens: 200, outputTokens: 30, cacheReadTokens: 50 } },
    });
    const from = w.log.length;
    recoverConversation(w.log);
    const closed = appendedBy(w.log, from).at(-1)!;
    expect(closed.type).toBe('turn.closed');
    expect(closed.payload).toEqual({
      turn: 1,
      outcome: { kind: 'interrupted' },
      steps: 2,
      usage: { inputTokens: 300, outputTokens: 40, cacheReadTokens: 50 },
      toolCalls: 2,
      recovered: true,
    });
  });

  it('is idempotent: a second run (or a run after reopening) changes nothing', () => {
    const w = conversation().receive('m1').open(0).take(0, 'm1').model(0, 0).assistant(0, 0, ['c1']).started(0, 0, 'c1');
    expect(recoverConversation(w.log).recovered).toBe(true);
    const length = w.log.length;
    expect(recoverConversation(w.log).recovered).toBe(false);
    const again = reopened(w.log);
    expect(recoverConversation(again).recovered).toBe(false);
    expect(again.length).toBe(length);
  });

  it('leaves a history the model can be sent: every call paired, and the next turn can open', () => {
    const w = conversation()
      .receive('m1')
      .open(0)
      .take(0, 'm1')
      .model(0, 0)
      .assistant(0, 0, ['c1', 'c2'])
      .started(0, 0, 'c1')
      .receive('s1', 'steer')
      .take(0, 's1', 'steer');
    recoverConversation(w.log);
    const log = reopened(w.log);
    expect(checkToolPairing(project(log.events))).toBeUndefined();
    log.append('turn.opened', { turn: 1, trigger: 'follow_up' });
    log.append('user.message', { turn: 1, id: 's1', intent: 'steer', text: 'text of s1' });
    expect(log.positions.openTurn).toBe(1);
  });
});
