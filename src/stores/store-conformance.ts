/**
 * The EventStore contract as a test suite every store must pass (in the spirit of
 * LangGraph's checkpoint-validation): call `describeEventStoreContract` from the
 * store's own test file with a factory that returns a fresh, empty store.
 *
 * The lock tests never wait on time: they let pending callbacks run
 * (`settle()`) and then check who holds the lock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EventRecord } from '../kernel/index.ts';
import { StoreConflictError, StoreError, StoreLockAbortedError, type EventStore, type Release } from './event-store.ts';

export type EventStoreFactory = () => EventStore | Promise<EventStore>;

/** A record with a payload rich enough to catch lossy serialization. */
export function sampleRecord(seq: number, overrides: Partial<EventRecord> = {}): EventRecord {
  return {
    seq,
    type: 'tool.result',
    v: 1,
    at: 1_712_345_678_901.25 + seq,
    payload: {
      turn: 2,
      n: seq,
      negative: -17,
      float: 0.1 + 0.2,
      big: 9_007_199_254_740_991,
      tiny: 5e-324,
      flag: false,
      nothing: null,
      empty: {},
      list: [1, 'two', { three: [3] }, [], null, true],
      text: 'line one\nline "two"\t\\ end',
    },
    ignorable: false,
    ...overrides,
  };
}

export function records(from: number, count: number): EventRecord[] {
  return Array.from({ length: count }, (_, i) => sampleRecord(from + i));
}

/** Lets every queued promise callback and I/O callback run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export function describeEventStoreContract(name: string, factory: EventStoreFactory): void {
  describe(`EventStore contract: ${name}`, () => {
    const opened: EventStore[] = [];
    async function fresh(): Promise<EventStore> {
      const store = await factory();
      opened.push(store);
      return store;
    }
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
    });

    describe('append and read', () => {
      it('starts empty', async () => {
        const store = await fresh();
        expect(await store.read('nobody')).toEqual([]);
        expect(await store.listConversations()).toEqual([]);
        expect(store.describe).toBeTypeOf('string');
      });

      it('reads back every envelope field exactly as appended', async () => {
        const store = await fresh();
        const batch: EventRecord[] = [
          sampleRecord(0),
          sampleRecord(1, { type: 'model.delta', v: 3, ignorable: true, at: 0.5 }),
          sampleRecord(2, { sources: [0, 1] }),
          sampleRecord(3, { sources: [] }),
        ];
        await store.append('c', batch);
        const back = await store.read('c');
        expect(back).toStrictEqual(batch);
        // A record without sources must not grow a `sources` key (not even undefined).
        expect(Object.hasOwn(back[0]!, 'sources')).toBe(false);
        expect(back[3]!.sources).toEqual([]);
      });

      it('reads from a seq', async () => {
        const store = await fresh();
        await store.append('c', records(0, 5));
        expect((await store.read('c', 2)).map((r) => r.seq)).toEqual([2, 3, 4]);
        expect((await store.read('c', 0)).map((r) => r.seq)).toEqual([0, 1, 2, 3, 4]);
        expect(await store.read('c', 5)).toEqual([]);
        expect(await store.read('c', 50)).toEqual([]);
      });

      it('refuses a negative or fractional fromSeq', async () => {
        const store = await fresh();
        await expect(store.read('c', -1)).rejects.toThrow(StoreError);
        await expect(store.read('c', 1.5)).rejects.toThrow(/fromSeq/);
      });

      it('keeps seqs gapless from 0 across many batches', async () => {
        const store = await fresh();
        let seq = 0;
        for (const size of [1, 3, 1, 7, 2, 10]) {
          await store.append('c', records(seq, size));
          seq += size;
        }
        expect((await store.read('c')).map((r) => r.seq)).toEqual(Array.from({ length: seq }, (_, i) => i));
      });

      it('accepts an empty batch as a no-op', async () => {
        const store = await fresh();
        await store.append('c', []);
        expect(await store.read('c')).toEqual([]);
        expect(await store.listConversations()).toEqual([]);
      });

      it('is not changed by mutating what was appended or what was read', async () => {
        const store = await fresh();
        const input = records(0, 2) as Array<EventRecord & { payload: { n: number; list: unknown[] } }>;
        await store.append('c', input);
        input[0]!.payload.n = 999;
        input[0]!.payload.list.push('extra');
        const first = await store.read('c');
        try {
          (first[1]!.payload as { n: number }).n = 777;
          (first as EventRecord[]).pop();
        } catch {
          // Frozen records refuse the mutation; either way the store must not change.
        }
        expect(await store.read('c')).toStrictEqual(records(0, 2));
      });
    });

    describe('conflicts and atomicity', () => {
      it('refuses a first batch that does not start at seq 0', async () => {
        const store = await fresh();
        await expect(store.append('c', records(1, 2))).rejects.toThrow(StoreConflictError);
        expect(await store.read('c')).toEqual([]);
        expect(await store.listConversations()).toEqual([]);
      });

      it('refuses a batch that skips ahead or rewrites stored seqs', async () => {
        const store = await fresh();
        await store.append('c', records(0, 3));
        const gap = await store.append('c', records(4, 1)).catch((e: unknown) => e);
        expect(gap).toBeInstanceOf(StoreConflictError);
        expect(gap).toMatchObject({ conversationId: 'c', expected: 3, got: 4 });
        await expect(store.append('c', records(2, 2))).rejects.toThrow(StoreConflictError);
        await expect(store.append('c', records(0, 1))).rejects.toThrow(StoreConflictError);
        expect(await store.read('c')).toStrictEqual(records(0, 3));
        // The rightful next batch still goes in.
        await store.append('c', records(3, 1));
        expect((await store.read('c')).length).toBe(4);
      });

      it('stores nothing of a batch with a bad seq in the middle', async () => {
        const store = await fresh();
        await store.append('c', records(0, 2));
        const bad = [sampleRecord(2), sampleRecord(3), sampleRecord(5), sampleRecord(6)];
        const error = await store.append('c', bad).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(StoreConflictError);
        expect(error).toMatchObject({ expected: 4, got: 5 });
        expect(String((error as Error).message)).toMatch(/batch record 2 has seq 5, expected 4/);
        await expect(store.append('c', [sampleRecord(2), sampleRecord(2)])).rejects.toThrow(StoreConflictError);
        expect(await store.read('c')).toStrictEqual(records(0, 2));
      });

      it('stores nothing of a batch with a malformed record, naming the field', async () => {
        const store = await fresh();
        const malformed = [sampleRecord(0), { ...sampleRecord(1), type: '' }];
        await expect(store.append('c', malformed)).rejects.toThrow(/batch record 1 \(seq 1\): type/);
        await expect(store.append('c', [{ ...sampleRecord(0), at: Number.NaN }])).rejects.toThrow(/at must be a finite number/);
        await expect(store.append('c', [{ ...sampleRecord(0), sources: [0] }])).rejects.toThrow(/sources\[0\]/);
        await expect(store.append('', records(0, 1))).rejects.toThrow(/conversation id/);
        expect(await store.read('c')).toEqual([]);
      });

      it('refuses payloads that are not plain JSON data instead of storing them lossily', async () => {
        const store = await fresh();
        const cyclic: Record<string, unknown> = {};
        cyclic.self = cyclic;
        for (const payload of [{ a: undefined }, { n: Number.NaN }, { f: () => 1 }, { d: new Date(0) }, cyclic]) {
          const error = await store.append('c', [sampleRecord(0), { ...sampleRecord(1), payload }]).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(StoreError);
          expect(String((error as Error).message)).toMatch(/batch record 1 \(seq 1\)/);
        }
        expect(await store.read('c')).toEqual([]);
      });

      it('lets exactly one of two concurrent appends at the same seq win', async () => {
        const store = await fresh();
        const results = await Promise.allSettled([store.append('c', records(0, 2)), store.append('c', records(0, 3))]);
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
        expect(rejected.reason).toBeInstanceOf(StoreConflictError);
        const stored = await store.read('c');
        expect(stored.map((r) => r.seq)).toEqual(Array.from({ length: stored.length }, (_, i) => i));
      });
    });

    describe('appends in flight together (group commit)', () => {
      it('stores the batches of many conversations appended at once, each whole', async () => {
        const store = await fresh();
        const ids = Array.from({ length: 12 }, (_, i) => `g${i}`);
        await Promise.all(ids.map((id, i) => store.append(id, records(0, 1 + (i % 4)))));
        for (const [i, id] of ids.entries()) expect((await store.read(id)).map((r) => r.seq)).toEqual(Array.from({ length: 1 + (i % 4) }, (_, k) => k));
      });

      it('applies batches of one conversation appended without waiting in call order', async () => {
        const store = await fresh();
        await Promise.all([store.append('c', records(0, 2)), store.append('c', records(2, 3)), store.append('c', records(5, 1))]);
        expect((await store.read('c')).map((r) => r.seq)).toEqual([0, 1, 2, 3, 4, 5]);
      });

      it('refuses only the batch that conflicts; the others appended with it are stored', async () => {
        const store = await fresh();
        await store.append('b', records(0, 2));
        const results = await Promise.allSettled([store.append('a', records(0, 2)), store.append('b', records(5, 1)), store.append('c', records(0, 1))]);
        expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
        expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(StoreConflictError);
        expect((await store.read('a')).length).toBe(2);
        expect((await store.read('b')).length).toBe(2);
        expect((await store.read('c')).length).toBe(1);
      });

      it('refuses a batch that follows a refused one of the same conversation, storing neither', async () => {
        const store = await fresh();
        const results = await Promise.allSettled([store.append('c', records(1, 2)), store.append('c', records(3, 1))]);
        expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
        expect(await store.read('c')).toEqual([]);
      });
    });

    describe('conversations', () => {
      it('keeps conversations isolated', async () => {
        const store = await fresh();
        await store.append('a', records(0, 3));
        await store.append('b', [sampleRecord(0, { type: 'turn.opened', payload: { turn: 0, trigger: 'b' } })]);
        await store.append('a', records(3, 1));
        expect((await store.read('a')).map((r) => r.seq)).toEqual([0, 1, 2, 3]);
        expect(await store.read('b')).toStrictEqual([sampleRecord(0, { type: 'turn.opened', payload: { turn: 0, trigger: 'b' } })]);
        await expect(store.append('b', records(4, 1))).rejects.toThrow(StoreConflictError);
        expect(await store.read('ab')).toEqual([]);
      });

      it('lists each conversation with events once, sorted', async () => {
        const store = await fresh();
        await store.append('zeta', records(0, 1));
        await store.append('alpha', records(0, 2));
        await store.append('alpha', records(2, 1));
        await store.append('never', records(5, 1)).catch(() => undefined);
        expect(await store.listConversations()).toEqual(['alpha', 'zeta']);
      });
    });

    describe('content', () => {
      it('keeps large payloads intact', async () => {
        const store = await fresh();
        const big = 'x'.repeat(1_000_000) + 'end';
        const many = Array.from({ length: 10_000 }, (_, i) => ({ i, s: `item ${i}` }));
        await store.append('c', [sampleRecord(0, { payload: { big } }), sampleRecord(1, { payload: { many } })]);
        const [first, second] = await store.read('c');
        expect((first!.payload as { big: string }).big).toBe(big);
        expect((second!.payload as { many: unknown[] }).many).toEqual(many);
      });

      it('keeps unicode intact, in payloads and conversation ids', async () => {
        const store = await fresh();
        const text = '会话 — naïve café 🙂👩‍👩‍👧 e\u0301 \u200d \u0000 nul \u{1F600} עברית';
        const id = '会话-🙂';
        await store.append(id, [sampleRecord(0, { type: 'user.message', payload: { text, [text]: 'key' } })]);
        expect(await store.read(id)).toStrictEqual([sampleRecord(0, { type: 'user.message', payload: { text, [text]: 'key' } })]);
        expect(await store.listConversations()).toEqual([id]);
      });
    });

    describe('the conversation lock', () => {
      /** Starts a lock request and records when it is granted. */
      function request(store: EventStore, id: string, log: string[], label: string, signal?: AbortSignal) {
        const state: { release?: Release; error?: unknown } = {};
        const done = store.lock(id, signal).then(
          (release) => {
            log.push(label);
            state.release = release;
          },
          (error: unknown) => {
            state.error = error;
          },
        );
        return { state, done };
      }

      it('grants a free lock at once', async () => {
        const store = await fresh();
        const release = await store.lock('c');
        await release();
      });

      it('is mutually exclusive: a second holder waits until the first releases', async () => {
        const store = await fresh();
        const log: string[] = [];
        const a = request(store, 'c', log, 'a');
        await a.done;
        const b = request(store, 'c', log, 'b');
        await settle();
        expect(log).toEqual(['a']);
        await a.state.release!();
        await b.done;
        expect(log).toEqual(['a', 'b']);
        await b.state.release!();
      });

      it('never lets two critical sections overlap', async () => {
        const store = await fresh();
        let inside = 0;
        let maxInside = 0;
        const worker = async () => {
          const release = await store.lock('c');
          try {
            inside++;
            maxInside = Math.max(maxInside, inside);
            await settle();
            await settle();
            inside--;
          } finally {
            await release();
          }
        };
        await Promise.all(Array.from({ length: 8 }, worker));
        expect(maxInside).toBe(1);
      });

      it('grants waiters in arrival order', async () => {
        const store = await fresh();
        const log: string[] = [];
        const first = request(store, 'c', log, 'first');
        await first.done;
        const labels = ['w1', 'w2', 'w3', 'w4'];
        const waiters = labels.map((label) => request(store, 'c', log, label));
        await settle();
        let holder = first;
        for (let i = 0; i < waiters.length; i++) {
          await holder.state.release!();
          await settle();
          // Exactly the next waiter in arrival order holds the lock now.
          expect(log).toEqual(['first', ...labels.slice(0, i + 1)]);
          holder = waiters[i]!;
        }
        await holder.state.release!();
      });

      it('rejects a waiter whose signal aborts, and skips it', async () => {
        const store = await fresh();
        const log: string[] = [];
        const a = request(store, 'c', log, 'a');
        await a.done;
        const controller = new AbortController();
        const b = request(store, 'c', log, 'b', controller.signal);
        const c = request(store, 'c', log, 'c');
        await settle();
        controller.abort();
        await b.done;
        expect(b.state.error).toBeInstanceOf(StoreLockAbortedError);
        expect(log).toEqual(['a']);
        await a.state.release!();
        await c.done;
        expect(log).toEqual(['a', 'c']);
        await c.state.release!();
        // The lock is free again.
        await (await store.lock('c'))();
      });

      it('rejects at once when the signal has already aborted', async () => {
        const store = await fresh();
        await expect(store.lock('c', AbortSignal.abort())).rejects.toThrow(StoreLockAbortedError);
        // Nobody holds it afterwards.
        await (await store.lock('c'))();
      });

      it("ignores a second release (it must not free the next holder's lock)", async () => {
        const store = await fresh();
        const log: string[] = [];
        const a = request(store, 'c', log, 'a');
        await a.done;
        const b = request(store, 'c', log, 'b');
        const c = request(store, 'c', log, 'c');
        await settle();
        await a.state.release!();
        await settle();
        expect(log).toEqual(['a', 'b']);
        await a.state.release!();
        await settle();
        expect(log).toEqual(['a', 'b']);
        await b.state.release!();
        await settle();
        expect(log).toEqual(['a', 'b', 'c']);
        await c.state.release!();
      });

      it('locks conversations independently', async () => {
        const store = await fresh();
        const releaseA = await store.lock('a');
        const releaseB = await store.lock('b');
        await releaseA();
        await releaseB();
      });

      it('fails waiters when the store closes', async () => {
        const store = await fresh();
        const log: string[] = [];
        const a = request(store, 'c', log, 'a');
        await a.done;
        const b = request(store, 'c', log, 'b');
        await settle();
        await store.close();
        await b.done;
        expect(b.state.error).toBeInstanceOf(StoreError);
        expect(log).toEqual(['a']);
        await expect(store.append('c', records(0, 1))).rejects.toThrow(/closed/);
        await a.state.release!();
      });
    });
  });
}

/**
 * The snapshot part of the contract, for stores that keep snapshots
 * (`readSnapshot`, `readRangeSync`): a snapshot goes in with its batch or not at
 * all, the latest replaces the one before, and records read synchronously are
 * those `read` returns.
 */
export function describeSnapshotStoreContract(name: string, factory: EventStoreFactory): void {
  describe(`EventStore snapshot contract: ${name}`, () => {
    const opened: EventStore[] = [];
    async function fresh(): Promise<Required<Pick<EventStore, 'readSnapshot' | 'readRangeSync'>> & EventStore> {
      const store = await factory();
      opened.push(store);
      if (!store.readSnapshot || !store.readRangeSync) throw new Error(`${name} keeps no snapshots`);
      return store as Required<Pick<EventStore, 'readSnapshot' | 'readRangeSync'>> & EventStore;
    }
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
    });
    const snap = (upTo: number, body = `state ${upTo}`) => ({ upTo, digest: `d${upTo}`, body });

    it('stores a snapshot with its batch and hands back the latest one', async () => {
      const store = await fresh();
      expect(await store.readSnapshot('c')).toBeUndefined();
      await store.append('c', records(0, 3), { snapshot: snap(3) });
      expect(await store.readSnapshot('c')).toEqual(snap(3));
      await store.append('c', records(3, 2));
      expect(await store.readSnapshot('c')).toEqual(snap(3));
      await store.append('c', records(5, 1), { snapshot: snap(6, 'x'.repeat(100_000)) });
      expect(await store.readSnapshot('c')).toEqual(snap(6, 'x'.repeat(100_000)));
      expect(await store.readSnapshot('other')).toBeUndefined();
    });

    it('stores no snapshot with a batch it refuses, and refuses a snapshot that is not at the end of its batch', async () => {
      const store = await fresh();
      await store.append('c', records(0, 2), { snapshot: snap(2) });
      await expect(store.append('c', records(5, 1), { snapshot: snap(6) })).rejects.toThrow(StoreConflictError);
      await expect(store.append('c', records(2, 2), { snapshot: snap(3) })).rejects.toThrow(/not at the end of the batch/);
      expect(await store.readSnapshot('c')).toEqual(snap(2));
      expect((await store.read('c')).length).toBe(2);
    });

    it('reads a range of records synchronously, as read returns them', async () => {
      const store = await fresh();
      await store.append('c', records(0, 10));
      expect(store.readRangeSync('c', 3, 7)).toStrictEqual((await store.read('c', 3)).slice(0, 4));
      expect(store.readRangeSync('c', 8, 20)).toStrictEqual(await store.read('c', 8));
      expect(store.readRangeSync('c', 5, 5)).toEqual([]);
      expect(store.readRangeSync('nobody', 0, 5)).toEqual([]);
    });
  });
}
