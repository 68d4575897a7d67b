/**
 * A case over several lives of its log keeps what the final log holds: requests
 * and turns of an earlier life count when their record reached the store before
 * that life ended; the rest is set aside as lost, and durableBefore follows the
 * final log event by event.
 */
import { describe, expect, it } from 'vitest';
import { EventLog, type TraceRecord, type TurnResult } from '../../kernel/index.ts';
import { CaseRecording } from './case-recording.ts';
import type { ProviderCall } from './recording-model.ts';

const clock = { now: () => 0 };
const trace = (turn: number): TraceRecord => ({ traceId: `case:${turn}`, spans: [], violations: [] }) as unknown as TraceRecord;
const result = (turn: number): TurnResult => ({
  turn,
  outcome: { kind: 'replied' },
  steps: 1,
  toolCalls: 0,
  usage: { inputTokens: 0, outputTokens: 0 },
  returnedToInbox: [],
  trace: trace(turn),
});
const sent = (n: number) => ({ model: `request ${n}`, system: '', messages: [], tools: [], maxTokens: 1 });
const settled: ProviderCall = { settled: 'result', lateDeltas: 0 };

describe('CaseRecording', () => {
  it('one life: everything is kept', () => {
    let stored = 0;
    const recording = new CaseRecording(() => stored);
    const log = new EventLog(clock);
    recording.opened(log);
    log.append('inbox.received', { id: 'm1', intent: 'follow_up', text: 'hi', source: 'user' });
    stored = 1;
    log.append('turn.opened', { turn: 0, trigger: 'm1' });
    const recorded = recording.finish([sent(1)], [settled], [recording.origin()]);
    expect(recorded.durableBefore).toEqual([0, 1]);
    expect(recorded.requests).toHaveLength(1);
    expect(recorded.lives).toBe(1);
  });

  it('a second life opened over a shorter store: the first life’s work past it is lost', () => {
    let stored = 0;
    const recording = new CaseRecording(() => stored);
    const first = new EventLog(clock);
    recording.opened(first);
    first.append('inbox.received', { id: 'm1', intent: 'follow_up', text: 'hi', source: 'user' });
    first.append('turn.opened', { turn: 0, trigger: 'm1' });
    stored = 2; // the store holds the first two events
    first.append('user.message', { turn: 0, id: 'm1', intent: 'follow_up', text: 'hi' });
    const lostOrigin = recording.origin(); // a request whose record (seq 2) never reached the store
    first.append('turn.closed', { turn: 0, outcome: { kind: 'replied' }, steps: 0, usage: { inputTokens: 0, outputTokens: 0 }, toolCalls: 0 });
    recording.turnClosed(first, result(0));
    recording.traced(first, trace(0), 0);

    const second = new EventLog(clock, first.events.slice(0, 2));
    recording.opened(second);
    second.append('user.message', { turn: 0, id: 'm1', intent: 'follow_up', text: 'hi' });
    const keptOrigin = recording.origin();
    second.append('turn.closed', { turn: 0, outcome: { kind: 'replied' }, steps: 0, usage: { inputTokens: 0, outputTokens: 0 }, toolCalls: 0 });
    stored = 4;
    recording.turnClosed(second, result(0));

    const recorded = recording.finish([sent(1), sent(2)], [settled, settled], [lostOrigin, keptOrigin]);
    expect(recorded.log).toBe(second);
    expect(recorded.lives).toBe(2);
    expect(recorded.requests.map((r) => r.model)).toEqual(['request 2']);
    expect(recorded.lost.requests).toBe(1);
    expect(recorded.results).toHaveLength(1);
    expect(recorded.lost.turns).toHaveLength(1);
    expect(recorded.traces).toEqual([]); // the first life's trace closed a turn the store never held
    expect(recorded.durableBefore).toEqual([0, 0, 2, 2]);
  });

  it('several live hosts: a kept log taken up again is the conversation again, and the log opened between ends where it began', () => {
    let stored = 0;
    const recording = new CaseRecording(() => stored, undefined, { takenUpAgain: true });
    const kept = new EventLog(clock);
    recording.opened(kept); // host 2
    kept.append('inbox.received', { id: 'm1', intent: 'follow_up', text: 'hi', source: 'user' });
    stored = 1;
    const other = new EventLog(clock, kept.events.slice());
    recording.opened(other); // host 1 opens; the store refuses its message
    other.append('inbox.received', { id: 'm2', intent: 'follow_up', text: 'refused', source: 'user' });
    kept.append('turn.opened', { turn: 0, trigger: 'm1' }); // host 2 answers on from its kept log
    const origin = recording.origin();
    kept.append('turn.closed', { turn: 0, outcome: { kind: 'replied' }, steps: 0, usage: { inputTokens: 0, outputTokens: 0 }, toolCalls: 0 });
    stored = 3;
    recording.turnClosed(kept, result(0));

    const recorded = recording.finish([sent(1)], [settled], [origin]);
    expect(recorded.log).toBe(kept);
    expect(recorded.lives).toBe(3);
    expect(recorded.requests).toHaveLength(1);
    expect(recorded.results).toHaveLength(1);
    expect(recorded.durableBefore).toEqual([0, 1, 1]);
  });

  it('one host: a dead process’s log growing in memory is not taken up again', () => {
    const recording = new CaseRecording(() => 0);
    const dead = new EventLog(clock);
    recording.opened(dead);
    const reopened = new EventLog(clock);
    recording.opened(reopened);
    dead.append('inbox.received', { id: 'm1', intent: 'follow_up', text: 'late', source: 'user' });
    expect(recording.current).toBe(reopened);
  });
});
