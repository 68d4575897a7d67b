import { describe, expect, it } from 'vitest';
import { systemClock } from '../kernel/clock.ts';
import type { EventRecord } from '../kernel/log/envelope.ts';
import { EventLog } from '../kernel/log/event-log.ts';
import { MemoryEventStore } from '../stores/memory-store.ts';
import { ConversationWriter } from './conversation-writer.ts';

/** A store whose appends wait until `commit()` (a group commit that has not run yet), counting them. */
class HeldStore {
  readonly inner = new MemoryEventStore();
  readonly batches: number[][] = [];
  #held: { records: readonly EventRecord[]; resolve: () => void; reject: (e: Error) => void }[] = [];
  failNext: Error | undefined;

  append(conversationId: string, records: readonly EventRecord[]): Promise<void> {
    this.batches.push(records.map((r) => r.seq));
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    this.#held.push({ records, resolve, reject });
    void conversationId;
    return promise;
  }

  /** Commits what was handed over in one group — or, with `failNext`, fails the whole group. */
  async commit(): Promise<void> {
    const held = this.#held;
    this.#held = [];
    const failure = this.failNext;
    this.failNext = undefined;
    for (const h of held) {
      if (failure) h.reject(failure);
      else {
        await this.inner.append('c', h.records);
        h.resolve();
      }
    }
    await settle();
  }
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function logWith(count: number): EventLog {
  const log = new EventLog(systemClock);
  for (let i = 0; i < count; i++) log.append('inbox.received', { id: `m${log.length}`, intent: 'inject', text: 'x', source: 'user' });
  return log;
}

function add(log: EventLog, count: number): void {
  for (let i = 0; i < count; i++) log.append('inbox.received', { id: `m${log.length}`, intent: 'inject', text: 'x', source: 'user' });
}

describe('ConversationWriter', () => {
  it('resolves a step persist at once and a barrier only once the store has committed', async () => {
    const store = new HeldStore();
    const log = logWith(2);
    const writer = new ConversationWriter(store, 'c', log);
    await writer.persist('step'); // resolved although nothing is committed
    expect(log.flushedUpTo).toBe(0);
    let durable = false;
    const barrier = writer.persist('barrier').then(() => (durable = true));
    await settle();
    expect(durable).toBe(false);
    await store.commit();
    await barrier;
    expect(log.flushedUpTo).toBe(2);
  });

  it('hands the new events of each persist over at once, in order, and counts them stored in that order', async () => {
    const store = new HeldStore();
    const log = logWith(1);
    const writer = new ConversationWriter(store, 'c', log);
    await writer.persist('step');
    add(log, 2);
    await writer.persist('step');
    add(log, 1);
    const barrier = writer.persist();
    expect(store.batches).toEqual([[0], [1, 2], [3]]); // all in flight together: one group commit
    await store.commit();
    await barrier;
    expect(log.flushedUpTo).toBe(4);
    expect(await store.inner.read('c')).toHaveLength(4);
  });

  it('after a failed write rejects the waiting barrier and every later persist, and writes nothing more', async () => {
    const store = new HeldStore();
    const log = logWith(2);
    const writer = new ConversationWriter(store, 'c', log);
    await writer.persist('step');
    add(log, 1);
    const barrier = expect(writer.persist('barrier')).rejects.toThrow('disk full');
    store.failNext = new Error('disk full');
    await store.commit();
    await barrier;
    add(log, 1);
    await expect(writer.persist('step')).rejects.toThrow(/an earlier write failed \(disk full\)/);
    await expect(writer.persist('barrier')).rejects.toThrow(/an earlier write failed/);
    expect(store.batches).toEqual([[0, 1], [2]]); // the one handed over with it; none after the failure was known
    expect(log.flushedUpTo).toBe(0);
    expect(writer.failure?.message).toBe('disk full');
  });

  it('refuses every persist while its guard throws (a halted host)', async () => {
    const store = new HeldStore();
    const log = logWith(1);
    let halted = false;
    const writer = new ConversationWriter(store, 'c', log, {
      guard: () => {
        if (halted) throw new Error('halted');
      },
    });
    halted = true;
    await expect(writer.persist('step')).rejects.toThrow('halted');
    await expect(writer.persist('barrier')).rejects.toThrow('halted');
    expect(store.batches).toEqual([]);
  });

  it('tells onStored after each committed write', async () => {
    const store = new HeldStore();
    const log = logWith(1);
    let told = 0;
    const writer = new ConversationWriter(store, 'c', log, { onStored: () => told++ });
    const barrier = writer.persist();
    await store.commit();
    await barrier;
    expect(told).toBe(1);
  });
});

describe('a store that answers batches out of hand-over order', () => {
  /** Appends answered by hand, in any order. */
  class ManualStore {
    readonly held: { resolve: () => void; reject: (e: Error) => void }[] = [];
    append(): Promise<void> {
      const { promise, resolve, reject } = Promise.withResolvers<void>();
      this.held.push({ resolve, reject });
      return promise;
    }
  }

  it('counts a batch stored before the failed one, even when the failure is answered first; rejects later persists only then', async () => {
    const store = new ManualStore();
    const log = logWith(2);
    const writer = new ConversationWriter(store, 'c', log);
    void writer.persist('step'); // batch 1: seqs 0–1
    add(log, 2);
    const second = writer.persist('barrier'); // batch 2: seqs 2–3, waits for it
    second.catch(() => undefined);
    store.held[1]!.reject(new Error('disk full')); // the store answers batch 2 first: failed
    await settle();
    const later = writer.persist('barrier');
    later.catch(() => undefined);
    let laterSettled = false;
    void later.then(
      () => (laterSettled = true),
      () => (laterSettled = true),
    );
    await settle();
    expect(laterSettled).toBe(false); // batch 1 is not answered yet: what is stored is not known
    store.held[0]!.resolve(); // then batch 1: stored
    await settle();
    expect(log.flushedUpTo).toBe(2);
    await expect(second).rejects.toThrow(/disk full/);
    await expect(later).rejects.toThrow(/an earlier write failed \(disk full\)/);
  });
});
