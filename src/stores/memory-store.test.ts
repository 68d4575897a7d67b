import { describe, expect, it } from 'vitest';
import { StoreError } from './event-store.ts';
import { MemoryEventStore } from './memory-store.ts';
import { describeEventStoreContract, describeSnapshotStoreContract, records, sampleRecord } from './store-conformance.ts';

describeEventStoreContract('memory', () => new MemoryEventStore());
describeSnapshotStoreContract('memory', () => new MemoryEventStore());

describe('MemoryEventStore', () => {
  it('stores deep-frozen copies', async () => {
    const store = new MemoryEventStore();
    await store.append('c', [sampleRecord(0, { sources: [] })]);
    const [record] = await store.read('c');
    expect(Object.isFrozen(record)).toBe(true);
    expect(Object.isFrozen(record!.payload)).toBe(true);
    expect(Object.isFrozen((record!.payload as { list: unknown[] }).list)).toBe(true);
    expect(Object.isFrozen(record!.sources)).toBe(true);
  });

  it('failNextAppend makes exactly the next append reject, storing nothing', async () => {
    const store = new MemoryEventStore();
    const disk = new Error('disk full');
    store.failNextAppend(disk);
    await expect(store.append('c', records(0, 2))).rejects.toBe(disk);
    expect(store.count('c')).toBe(0);
    await store.append('c', records(0, 2));
    expect(store.count('c')).toBe(2);
  });

  it('failNextAppend queues failures and defaults to a StoreError', async () => {
    const store = new MemoryEventStore({ describe: 'memory:test' });
    store.failNextAppend();
    store.failNextAppend();
    await expect(store.append('c', records(0, 1))).rejects.toThrow(StoreError);
    await expect(store.append('c', records(0, 1))).rejects.toThrow(/memory:test: injected append failure/);
    await store.append('c', records(0, 1));
    expect(store.count('c')).toBe(1);
  });

  it('failNextRead makes the next read reject', async () => {
    const store = new MemoryEventStore();
    await store.append('c', records(0, 1));
    store.failNextRead(new Error('io'));
    await expect(store.read('c')).rejects.toThrow('io');
    expect(await store.read('c')).toHaveLength(1);
  });

  it('runs the beforeAppend fault hook and surfaces what it throws', async () => {
    const seen: number[] = [];
    const store = new MemoryEventStore({
      faults: {
        async beforeAppend(_id, batch) {
          seen.push(batch[0]!.seq);
          if (batch[0]!.seq === 2) throw new StoreError('write refused at seq 2');
        },
      },
    });
    await store.append('c', records(0, 2));
    await expect(store.append('c', records(2, 3))).rejects.toThrow('write refused at seq 2');
    expect(store.count('c')).toBe(2);
    expect(seen).toEqual([0, 2]);
  });

  it('applies batches in the order append was called, even when a slow hook holds an earlier one', async () => {
    // The store contract (event-store.ts): batches are applied in the order `append` was called. The host
    // pipelines a conversation's batches (write-behind), so a store that let a later batch overtake a slow one
    // would refuse it for its seqs, and the host would report a store failure that a real store never gives.
    let letFirstGo: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      letFirstGo = resolve;
    });
    const store = new MemoryEventStore({ faults: { beforeAppend: (_id, batch) => (batch[0]!.seq === 0 ? held : undefined) } });
    const first = store.append('c', records(0, 2));
    const second = store.append('c', records(2, 1));
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.count('c')).toBe(0);
    letFirstGo();
    await expect(Promise.all([first, second])).resolves.toEqual([undefined, undefined]);
    expect((await store.read('c')).map((r) => r.seq)).toEqual([0, 1, 2]);
  });

  it('a batch appended after a refused one fails its seq check, as in a durable store', async () => {
    const store = new MemoryEventStore({
      faults: {
        beforeAppend: async (_id, batch) => {
          await new Promise((resolve) => setImmediate(resolve));
          if (batch[0]!.seq === 0) throw new StoreError('write refused at seq 0');
        },
      },
    });
    const first = store.append('c', records(0, 2));
    const second = store.append('c', records(2, 1));
    await expect(first).rejects.toThrow('write refused at seq 0');
    await expect(second).rejects.toThrow(/seq 2/);
    expect(store.count('c')).toBe(0);
  });

  it('refuses every call after close', async () => {
    const store = new MemoryEventStore();
    await store.close();
    await expect(store.read('c')).rejects.toThrow(/closed/);
    await expect(store.listConversations()).rejects.toThrow(/closed/);
    await expect(store.lock('c')).rejects.toThrow(/closed/);
    await store.close();
  });
});
