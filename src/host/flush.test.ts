/**
 * serializedFlush with a store whose append is done before it returns (the
 * memory store: `WRITTEN`) and with one that takes its time: the same batches,
 * the same order, the same failures; only the first goes on without waiting.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../harness/virtual-clock.ts';
import { EventLog, isRecentlyLogged, toRecord, WRITTEN, type EventRecord } from '../kernel/index.ts';
import { MemoryEventStore } from '../stores/memory-store.ts';
import { serializedFlush } from './flush.ts';

function logWith(n: number): EventLog {
  const log = new EventLog(new VirtualClock());
  for (let i = 0; i < n; i++) log.append('inbox.received', { id: `m${i}`, intent: 'follow_up', text: `hello ${i}`, source: 'user' });
  return log;
}

describe('serializedFlush', () => {
  it('a store done at once: WRITTEN, flushed before persist returns, records equal to the log', () => {
    const log = logWith(2);
    const store = new MemoryEventStore();
    const persist = serializedFlush(store, 'c', log);
    expect(persist()).toBe(WRITTEN);
    expect(log.flushedUpTo).toBe(2);
    log.append('inbox.received', { id: 'm2', intent: 'follow_up', text: 'again', source: 'user' });
    expect(persist()).toBe(WRITTEN);
    expect(persist()).toBe(WRITTEN); // nothing new
    const stored = store.peek('c');
    expect(stored.map((r) => JSON.stringify(r))).toEqual(log.events.map((e) => JSON.stringify(toRecord(e))));
    for (const r of stored) expect(Object.isFrozen(r) && Object.isFrozen(r.payload)).toBe(true);
  });

  it('a store that takes its time: writes one at a time, flushed when each resolves', async () => {
    const log = logWith(1);
    const memory = new MemoryEventStore();
    const releases: (() => void)[] = [];
    const batches: number[][] = [];
    const store = {
      append(id: string, records: readonly EventRecord[]) {
        batches.push(records.map((r) => r.seq));
        return new Promise<void>((resolve) => releases.push(() => resolve(memory.append(id, records))));
      },
    };
    const persist = serializedFlush(store, 'c', log);
    const first = persist();
    expect(first).not.toBe(WRITTEN);
    log.append('inbox.received', { id: 'm1', intent: 'follow_up', text: 'more', source: 'user' });
    const second = persist();
    expect(log.flushedUpTo).toBe(0);
    expect(batches).toEqual([[0]]); // the second waits for the first
    releases.shift()!();
    await first;
    expect(log.flushedUpTo).toBe(1);
    await Promise.resolve();
    expect(batches).toEqual([[0], [1]]);
    releases.shift()!();
    await second;
    expect(log.flushedUpTo).toBe(2);
  });

  it('a refused write rejects, leaves the events unflushed, and the next write carries them', async () => {
    const log = logWith(1);
    const store = new MemoryEventStore();
    const persist = serializedFlush(store, 'c', log);
    store.failNextAppend(new Error('disk full'));
    await expect(persist()).rejects.toThrow('disk full');
    expect(log.flushedUpTo).toBe(0);
    expect(persist()).toBe(WRITTEN);
    expect(store.count('c')).toBe(1);
  });

  it('stopAfterFailure: after a refused write nothing more is written, also by a store done at once', async () => {
    const log = logWith(1);
    const store = new MemoryEventStore();
    const persist = serializedFlush(store, 'c', log, { stopAfterFailure: true });
    store.failNextAppend(new Error('disk full'));
    await expect(persist()).rejects.toThrow('disk full');
    await expect(persist()).rejects.toThrow(/an earlier write failed \(disk full\)/);
    expect(store.count('c')).toBe(0);
  });
});

describe('the memory store and the log', () => {
  it('keeps an event a log just stored as it is, and copies anything else', async () => {
    const log = logWith(1);
    const event = log.events[0]!;
    expect(isRecentlyLogged(event)).toBe(true);
    const store = new MemoryEventStore();
    await store.append('c', [event]);
    expect(store.peek('c')[0]).toBe(event);
    // The same record as a plain unfrozen object: a frozen copy, equal to it.
    const plain = { ...toRecord(event), seq: 0, payload: { ...(event.payload as object) } };
    await store.append('d', [plain]);
    const copy = store.peek('d')[0]!;
    expect(copy).not.toBe(plain);
    expect(Object.isFrozen(copy) && Object.isFrozen(copy.payload)).toBe(true);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(toRecord(event)));
    expect(isRecentlyLogged(plain)).toBe(false);
  });
});
