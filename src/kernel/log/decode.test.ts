import { describe, expect, it } from 'vitest';
import { decodeRecords } from './decode.ts';
import type { EventRecord } from './envelope.ts';
import { LogReadError } from './errors.ts';

const received = (seq: number, extra: Partial<EventRecord> = {}): EventRecord => ({
  seq,
  type: 'inbox.received',
  v: 1,
  at: 5,
  payload: { id: `m${seq}`, intent: 'follow_up', text: 'hello', source: 'user' },
  ignorable: false,
  ...extra,
});

function readError(records: EventRecord[]): LogReadError {
  try {
    decodeRecords(records, 'store:c1');
  } catch (error) {
    expect(error).toBeInstanceOf(LogReadError);
    return error as LogReadError;
  }
  throw new Error('expected decodeRecords to refuse the records');
}

describe('decodeRecords: reading back from a store (invariant 3)', () => {
  it('decodes known records into frozen events', () => {
    const [event] = decodeRecords([received(0)], 'store:c1');
    expect(event).toMatchObject({ type: 'inbox.received', seq: 0, payload: { text: 'hello' } });
    expect(Object.isFrozen(event)).toBe(true);
    expect(Object.isFrozen(event!.payload)).toBe(true);
  });

  it('rejects an unknown event type that is not ignorable, naming the seq and the type', () => {
    const error = readError([received(0), { seq: 1, type: 'memory.recalled', v: 1, at: 5, payload: {}, ignorable: false }]);
    expect(error.seq).toBe(1);
    expect(error.message).toMatch(/store:c1 record seq 1: unknown event type "memory.recalled".*not marked ignorable/);
  });

  it('keeps an unknown ignorable event as opaque, never interpreting it', () => {
    const events = decodeRecords(
      [received(0), { seq: 1, type: 'ui.highlight', v: 3, at: 5, payload: { color: 'red' }, ignorable: true }, received(2)],
      'store:c1',
    );
    expect(events.map((e) => e.seq)).toEqual([0, 1, 2]);
    expect(events[1]).toMatchObject({ type: 'ui.highlight', opaque: true, payload: { color: 'red' } });
  });

  it('rejects a newer version of a known type unless ignorable', () => {
    const error = readError([received(0, { v: 2 })]);
    expect(error.message).toMatch(/"inbox.received" version 2 is newer than this reader \(knows 1\)/);
    const [opaque] = decodeRecords([received(0, { v: 2, ignorable: true })], 'store:c1');
    expect(opaque!.opaque).toBe(true);
  });

  it('rejects a corrupt payload, naming the field', () => {
    const error = readError([received(0, { payload: { id: 'm0', intent: 'shout', text: 'x', source: 'user' } })]);
    expect(error.message).toMatch(/seq 0: corrupt "inbox.received" payload at intent/);
  });

  it('rejects a seq gap', () => {
    const error = readError([received(0), received(2)]);
    expect(error.message).toMatch(/seq gap: expected seq 1, found 2/);
  });

  // Probe 58 LOW-4: a record written twice was told as a gap (records lost), which sends the reader looking for what is not missing.
  it('tells a repeated record as repeated, not as a gap', () => {
    const error = readError([received(0), received(1), received(1)]);
    expect(error.message).toMatch(/seq 1 again: expected seq 2 \(a record repeated or out of order\)/);
    expect(error.message).not.toMatch(/gap/);
  });
});

describe('decodeRecords with ownedJson: payloads a store just parsed, frozen in place', () => {
  const parsed = (records: EventRecord[]): EventRecord[] => JSON.parse(JSON.stringify(records)) as EventRecord[];
  const nested = (seq: number): EventRecord => ({
    seq,
    type: 'assistant.message',
    v: 1,
    at: 7,
    payload: { turn: 0, step: 1, content: [{ type: 'tool_call', id: `c${seq}`, name: 'add', args: { a: [1, { b: 2 }], c: null } }] },
    ignorable: false,
  });

  it('gives the events the copying decode gives, every object in them frozen, the payload itself kept', () => {
    const records = parsed([received(0), nested(1), { seq: 2, type: 'ui.highlight', v: 3, at: 5, payload: { color: ['red'] }, ignorable: true }]);
    const copied = decodeRecords(parsed(records), 'store:c1');
    const owned = decodeRecords(records, 'store:c1', 0, { ownedJson: true });
    expect(owned).toEqual(copied);
    expect(owned[1]!.payload).toBe(records[1]!.payload);
    const frozen = (v: unknown): boolean => typeof v !== 'object' || v === null || (Object.isFrozen(v) && Object.values(v).every(frozen));
    for (const event of owned) expect(frozen(event)).toBe(true);
  });

  it('refuses what the copying decode refuses: a corrupt payload, a seq gap, an unknown type not ignorable', () => {
    const decode = (records: EventRecord[]) => () => decodeRecords(parsed(records), 'store:c1', 0, { ownedJson: true });
    expect(decode([received(0, { payload: { id: 'm0', intent: 'shout', text: 'x', source: 'user' } })])).toThrow(/corrupt "inbox.received" payload at intent/);
    expect(decode([received(0), received(2)])).toThrow(/seq gap: expected seq 1, found 2/);
    expect(decode([{ seq: 0, type: 'memory.recalled', v: 1, at: 5, payload: {}, ignorable: false }])).toThrow(LogReadError);
  });
});
