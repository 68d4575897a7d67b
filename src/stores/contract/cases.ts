/**
 * The EventStore contract as data: every case a store must pass, each given a
 * factory of fresh, empty stores (in the spirit of LangGraph's
 * checkpoint-validation). Run by vitest through `describeEventStoreContract`
 * (store-conformance.ts) and by `loopgate run` on the bundled stores
 * (`contract:store/<store>/<id>`, src/harness/store-cases.ts): one list, so the
 * gate checks what the tests check.
 *
 * The lock cases never wait on time: they let pending callbacks run
 * (`settle()`) and then check who holds the lock.
 */
import type { EventRecord } from '../../kernel/index.ts';
import { StoreConflictError, StoreError, StoreLockAbortedError, type EventStore, type Release } from '../event-store.ts';
import { fields, rejects, same, truthy } from './expect.ts';

/** A store that keeps snapshots (`readSnapshot`, `readRangeSync`). */
export type SnapshotStore = Required<Pick<EventStore, 'readSnapshot' | 'readRangeSync'>> & EventStore;

export interface StoreContractCase {
  /** Unique within the contract (kebab-case). */
  readonly id: string;
  /** The part of the contract it belongs to (a vitest `describe`). */
  readonly group: string;
  readonly title: string;
  /** `snapshots`: only for stores that keep snapshots (the snapshot part of the contract). */
  readonly needs?: 'snapshots';
  /** Throws a StoreContractFailure (expect.ts) when the store breaks the contract. The stores `fresh` opened are closed after. */
  run(fresh: () => Promise<EventStore>): Promise<void>;
}

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

const seqs = (stored: readonly EventRecord[]) => stored.map((r) => r.seq);
const upTo = (n: number) => Array.from({ length: n }, (_, i) => i);

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

/** The release a granted request holds (a failure if it holds none). */
function held(what: string, state: { release?: Release }): Release {
  truthy(`${what} holds the lock`, state.release !== undefined, state.release);
  return state.release!;
}

async function snapshots(fresh: () => Promise<EventStore>): Promise<SnapshotStore> {
  const store = await fresh();
  truthy(
    'the store keeps snapshots (readSnapshot and readRangeSync)',
    typeof store.readSnapshot === 'function' && typeof store.readRangeSync === 'function',
    store.describe,
  );
  return store as SnapshotStore;
}

const snap = (upTo: number, body = `state ${upTo}`) => ({ upTo, digest: `d${upTo}`, body });

const APPEND = 'append and read';
const CONFLICTS = 'conflicts and atomicity';
const GROUP = 'appends in flight together (group commit)';
const CONVERSATIONS = 'conversations';
const CONTENT = 'content';
const LOCK = 'the conversation lock';
const SNAPSHOTS = 'snapshots';

export const STORE_CONTRACT: readonly StoreContractCase[] = [
  {
    id: 'starts-empty',
    group: APPEND,
    title: 'starts empty',
    async run(fresh) {
      const store = await fresh();
      same('read of a conversation never written', await store.read('nobody'), []);
      same('listConversations of an empty store', await store.listConversations(), []);
      truthy('describe is a string', typeof store.describe === 'string', store.describe);
    },
  },
  {
    id: 'reads-back-every-field',
    group: APPEND,
    title: 'reads back every envelope field exactly as appended',
    async run(fresh) {
      const store = await fresh();
      const batch: EventRecord[] = [
        sampleRecord(0),
        sampleRecord(1, { type: 'model.delta', v: 3, ignorable: true, at: 0.5 }),
        sampleRecord(2, { sources: [0, 1] }),
        sampleRecord(3, { sources: [] }),
      ];
      await store.append('c', batch);
      const back = await store.read('c');
      same('the records read back', back, batch);
      // A record without sources must not grow a `sources` key (not even undefined).
      truthy('a record appended without sources has no sources key', !Object.hasOwn(back[0] ?? {}, 'sources'), back[0]);
      same('empty sources read back', back[3]?.sources, []);
    },
  },
  {
    id: 'reads-from-a-seq',
    group: APPEND,
    title: 'reads from a seq',
    async run(fresh) {
      const store = await fresh();
      await store.append('c', records(0, 5));
      same('read from seq 2', seqs(await store.read('c', 2)), [2, 3, 4]);
      same('read from seq 0', seqs(await store.read('c', 0)), [0, 1, 2, 3, 4]);
      same('read from the next seq', await store.read('c', 5), []);
      same('read from past the end', await store.read('c', 50), []);
    },
  },
  {
    id: 'refuses-a-bad-from-seq',
    group: APPEND,
    title: 'refuses a negative or fractional fromSeq',
    async run(fresh) {
      const store = await fresh();
      await rejects('read from seq -1', store.read('c', -1), StoreError);
      await rejects('read from seq 1.5', store.read('c', 1.5), Error, /fromSeq/);
    },
  },
  {
    id: 'gapless-across-batches',
    group: APPEND,
    title: 'keeps seqs gapless from 0 across many batches',
    async run(fresh) {
      const store = await fresh();
      let seq = 0;
      for (const size of [1, 3, 1, 7, 2, 10]) {
        await store.append('c', records(seq, size));
        seq += size;
      }
      same('the seqs read back', seqs(await store.read('c')), upTo(seq));
    },
  },
  {
    id: 'empty-batch-is-a-no-op',
    group: APPEND,
    title: 'accepts an empty batch as a no-op',
    async run(fresh) {
      const store = await fresh();
      await store.append('c', []);
      same('read after an empty batch', await store.read('c'), []);
      same('listConversations after an empty batch', await store.listConversations(), []);
    },
  },
  {
    id: 'not-changed-by-callers-mutations',
    group: APPEND,
    title: 'is not changed by mutating what was appended or what was read',
    async run(fresh) {
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
      same('the records read after both were changed', await store.read('c'), records(0, 2));
    },
  },
  {
    id: 'first-batch-starts-at-zero',
    group: CONFLICTS,
    title: 'refuses a first batch that does not start at seq 0',
    async run(fresh) {
      const store = await fresh();
      await rejects('a first batch from seq 1', store.append('c', records(1, 2)), StoreConflictError);
      same('read after the refusal', await store.read('c'), []);
      same('listConversations after the refusal', await store.listConversations(), []);
    },
  },
  {
    id: 'refuses-gaps-and-rewrites',
    group: CONFLICTS,
    title: 'refuses a batch that skips ahead or rewrites stored seqs',
    async run(fresh) {
      const store = await fresh();
      await store.append('c', records(0, 3));
      const gap = await rejects('a batch from seq 4 after 0-2', store.append('c', records(4, 1)), StoreConflictError);
      fields('the conflict', gap, { conversationId: 'c', expected: 3, got: 4 });
      await rejects('a batch rewriting seqs 2-3', store.append('c', records(2, 2)), StoreConflictError);
      await rejects('a batch rewriting seq 0', store.append('c', records(0, 1)), StoreConflictError);
      same('the records after the refusals', await store.read('c'), records(0, 3));
      // The rightful next batch still goes in.
      await store.append('c', records(3, 1));
      same('the count after the rightful batch', (await store.read('c')).length, 4);
    },
  },
  {
    id: 'bad-seq-in-the-middle-stores-nothing',
    group: CONFLICTS,
    title: 'stores nothing of a batch with a bad seq in the middle',
    async run(fresh) {
      const store = await fresh();
      await store.append('c', records(0, 2));
      const bad = [sampleRecord(2), sampleRecord(3), sampleRecord(5), sampleRecord(6)];
      const error = await rejects('a batch 2, 3, 5, 6', store.append('c', bad), StoreConflictError, /batch record 2 has seq 5, expected 4/);
      fields('the conflict', error, { expected: 4, got: 5 });
      await rejects('a batch 2, 2', store.append('c', [sampleRecord(2), sampleRecord(2)]), StoreConflictError);
      same('the records after the refusals', await store.read('c'), records(0, 2));
    },
  },
  {
    id: 'malformed-record-stores-nothing',
    group: CONFLICTS,
    title: 'stores nothing of a batch with a malformed record, naming the field',
    async run(fresh) {
      const store = await fresh();
      await rejects(
        'a record with an empty type',
        store.append('c', [sampleRecord(0), { ...sampleRecord(1), type: '' }]),
        Error,
        /batch record 1 \(seq 1\): type/,
      );
      // A type that is no string at all (a number from a caller's JSON) is refused as well, not stored as it is.
      await rejects(
        'a record whose type is a number',
        store.append('c', [{ ...sampleRecord(0), type: 7 as unknown as string }]),
        Error,
        /type must be a non-empty string, got/,
      );
      await rejects('a record at NaN', store.append('c', [{ ...sampleRecord(0), at: Number.NaN }]), Error, /at must be a finite number/);
      // The refusal says what the field held: null as null, not as "a object" (mutation seed 52).
      await rejects(
        'a record whose v is null',
        store.append('c', [{ ...sampleRecord(0), v: null as unknown as number }]),
        Error,
        /v must be a positive integer, got null/,
      );
      await rejects('a record whose source is itself', store.append('c', [{ ...sampleRecord(0), sources: [0] }]), Error, /sources\[0\]/);
      await rejects('an empty conversation id', store.append('', records(0, 1)), Error, /conversation id/);
      same('read after the refusals', await store.read('c'), []);
    },
  },
  {
    id: 'refuses-payloads-that-are-not-json',
    group: CONFLICTS,
    title: 'refuses payloads that are not plain JSON data instead of storing them lossily',
    async run(fresh) {
      const store = await fresh();
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      // Each refusal names the record and says what in it is not JSON data.
      const payloads: readonly [string, Record<string, unknown>, RegExp][] = [
        ['an undefined value', { a: undefined }, /undefined/],
        ['NaN', { n: Number.NaN }, /NaN/],
        ['a function', { f: () => 1 }, /function/],
        ['a Date', { d: new Date(0) }, /Date/],
        ['a cycle', cyclic, /cycle|circular/i],
      ];
      for (const [what, payload, why] of payloads) {
        const error = await rejects(
          `a payload holding ${what}`,
          store.append('c', [sampleRecord(0), { ...sampleRecord(1), payload }]),
          StoreError,
          /batch record 1 \(seq 1\)/,
        );
        truthy(`the refusal of a payload holding ${what} says what is wrong (${why})`, why.test(error.message), error.message);
      }
      same('read after the refusals', await store.read('c'), []);
    },
  },
  {
    id: 'one-of-two-racing-appends-wins',
    group: CONFLICTS,
    title: 'lets exactly one of two concurrent appends at the same seq win',
    async run(fresh) {
      const store = await fresh();
      const results = await Promise.allSettled([store.append('c', records(0, 2)), store.append('c', records(0, 3))]);
      same('appends that succeeded', results.filter((r) => r.status === 'fulfilled').length, 1);
      const rejected = results.find((r) => r.status === 'rejected');
      truthy('the other is refused with a StoreConflictError', rejected?.reason instanceof StoreConflictError, rejected?.reason);
      const stored = await store.read('c');
      same('the seqs stored', seqs(stored), upTo(stored.length));
    },
  },
  {
    id: 'many-conversations-at-once',
    group: GROUP,
    title: 'stores the batches of many conversations appended at once, each whole',
    async run(fresh) {
      const store = await fresh();
      const ids = Array.from({ length: 12 }, (_, i) => `g${i}`);
      await Promise.all(ids.map((id, i) => store.append(id, records(0, 1 + (i % 4)))));
      for (const [i, id] of ids.entries()) same(`the seqs of ${id}`, seqs(await store.read(id)), upTo(1 + (i % 4)));
    },
  },
  {
    id: 'unawaited-batches-in-call-order',
    group: GROUP,
    title: 'applies batches of one conversation appended without waiting in call order',
    async run(fresh) {
      const store = await fresh();
      await Promise.all([store.append('c', records(0, 2)), store.append('c', records(2, 3)), store.append('c', records(5, 1))]);
      same('the seqs stored', seqs(await store.read('c')), [0, 1, 2, 3, 4, 5]);
    },
  },
  {
    id: 'only-the-conflicting-batch-refused',
    group: GROUP,
    title: 'refuses only the batch that conflicts; the others appended with it are stored',
    async run(fresh) {
      const store = await fresh();
      await store.append('b', records(0, 2));
      const results = await Promise.allSettled([store.append('a', records(0, 2)), store.append('b', records(5, 1)), store.append('c', records(0, 1))]);
      same(
        'which appends succeeded',
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      const refused = results[1];
      truthy('the refusal is a StoreConflictError', refused?.status === 'rejected' && refused.reason instanceof StoreConflictError, refused);
      same('records of a', (await store.read('a')).length, 2);
      same('records of b', (await store.read('b')).length, 2);
      same('records of c', (await store.read('c')).length, 1);
    },
  },
  {
    id: 'batch-after-a-refused-one-refused',
    group: GROUP,
    title: 'refuses a batch that follows a refused one of the same conversation, storing neither',
    async run(fresh) {
      const store = await fresh();
      const results = await Promise.allSettled([store.append('c', records(1, 2)), store.append('c', records(3, 1))]);
      same(
        'which appends succeeded',
        results.map((r) => r.status),
        ['rejected', 'rejected'],
      );
      same('read after both', await store.read('c'), []);
    },
  },
  {
    id: 'batch-ahead-of-its-place-refused-though-the-gap-fills',
    group: GROUP,
    title: 'refuses a batch that starts past the end though a batch in flight with it fills the gap, storing only that one',
    async run(fresh) {
      // Both in flight at once, the later-numbered first: a store that commits batches together must check each against
      // what is stored before it, not against the group (outside probe 66b: group commit without its seq check took both).
      const store = await fresh();
      const results = await Promise.allSettled([store.append('c', records(2, 2)), store.append('c', records(0, 2))]);
      same(
        'which appends succeeded',
        results.map((r) => r.status),
        ['rejected', 'fulfilled'],
      );
      same('the seqs read after both', seqs(await store.read('c')), [0, 1]);
    },
  },
  {
    id: 'append-in-flight-at-close-stored',
    group: GROUP,
    title: 'answers the appends handed to it before it closes as stored: none in flight as it closes is refused',
    async run(fresh) {
      const store = await fresh();
      await store.append('c', records(0, 2));
      // Not awaited: queued for the next group commit (SQLite, PostgreSQL) when the close comes. Dropped, the host
      // that closed after handing them over has told its callers they were stored (outside probe 67, sqlite-close-drop).
      // Only the answers can be checked here (a closed store reads nothing): a store's own tests reopen it and read.
      const answer = (append: Promise<void>) =>
        append.then(
          () => 'stored',
          (error: unknown) => `refused: ${(error as Error)?.message ?? String(error)}`,
        );
      const first = answer(store.append('c', records(2, 2)));
      const other = answer(store.append('d', records(0, 1)));
      await store.close();
      same('the append of c in flight as the store closed', await first, 'stored');
      same('the append of d in flight as the store closed', await other, 'stored');
    },
  },
  {
    id: 'conversations-isolated',
    group: CONVERSATIONS,
    title: 'keeps conversations isolated',
    async run(fresh) {
      const store = await fresh();
      const other = sampleRecord(0, { type: 'turn.opened', payload: { turn: 0, trigger: 'b' } });
      await store.append('a', records(0, 3));
      await store.append('b', [other]);
      await store.append('a', records(3, 1));
      same('the seqs of a', seqs(await store.read('a')), [0, 1, 2, 3]);
      same('the records of b', await store.read('b'), [other]);
      await rejects("a batch of b continuing a's seqs", store.append('b', records(4, 1)), StoreConflictError);
      same('read of a conversation whose id joins two others', await store.read('ab'), []);
    },
  },
  {
    id: 'lists-conversations-sorted',
    group: CONVERSATIONS,
    title: 'lists each conversation with events once, sorted by code unit whatever the database collation',
    async run(fresh) {
      const store = await fresh();
      await store.append('zeta', records(0, 1));
      await store.append('alpha', records(0, 2));
      await store.append('alpha', records(2, 1));
      await store.append('never', records(5, 1)).catch(() => undefined);
      // Capitals, an underscore and lower case: a collation other than code-unit order sorts them another way
      // (outside probe 66b: a PostgreSQL ORDER BY without COLLATE "C" passed on a C.UTF-8 database).
      for (const id of ['a', '_z', 'B']) await store.append(id, records(0, 1));
      same('listConversations', await store.listConversations(), ['B', '_z', 'a', 'alpha', 'zeta']);
    },
  },
  {
    id: 'large-payloads-intact',
    group: CONTENT,
    title: 'keeps large payloads intact',
    async run(fresh) {
      const store = await fresh();
      const big = `${'x'.repeat(1_000_000)}end`;
      const many = Array.from({ length: 10_000 }, (_, i) => ({ i, s: `item ${i}` }));
      await store.append('c', [sampleRecord(0, { payload: { big } }), sampleRecord(1, { payload: { many } })]);
      const [first, second] = await store.read('c');
      same('the 1 MB string read back', (first?.payload as { big?: string } | undefined)?.big, big);
      same('the 10,000-item list read back', (second?.payload as { many?: unknown[] } | undefined)?.many, many);
    },
  },
  {
    id: 'unicode-intact',
    group: CONTENT,
    title: 'keeps unicode intact, in payloads and conversation ids',
    async run(fresh) {
      const store = await fresh();
      const text = '会话 — naïve café 🙂👩‍👩‍👧 e\u0301 \u200d \u0000 nul \u{1F600} עברית';
      const id = '会话-🙂';
      const record = () => sampleRecord(0, { type: 'user.message', payload: { text, [text]: 'key' } });
      await store.append(id, [record()]);
      same('the record read back', await store.read(id), [record()]);
      same('listConversations', await store.listConversations(), [id]);
    },
  },
  {
    id: 'lock-free-granted-at-once',
    group: LOCK,
    title: 'grants a free lock at once',
    async run(fresh) {
      const store = await fresh();
      const release = await store.lock('c');
      await release();
    },
  },
  {
    id: 'lock-mutually-exclusive',
    group: LOCK,
    title: 'is mutually exclusive: a second holder waits until the first releases',
    async run(fresh) {
      const store = await fresh();
      const log: string[] = [];
      const a = request(store, 'c', log, 'a');
      await a.done;
      const b = request(store, 'c', log, 'b');
      await settle();
      same('holders while a holds the lock', log, ['a']);
      await held('a', a.state)();
      await b.done;
      same('holders after a released', log, ['a', 'b']);
      await held('b', b.state)();
    },
  },
  {
    id: 'lock-critical-sections-never-overlap',
    group: LOCK,
    title: 'never lets two critical sections overlap',
    async run(fresh) {
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
      same('the most holders at once of 8 workers', maxInside, 1);
    },
  },
  {
    id: 'lock-waiters-in-arrival-order',
    group: LOCK,
    title: 'grants waiters in arrival order',
    async run(fresh) {
      const store = await fresh();
      const log: string[] = [];
      const first = request(store, 'c', log, 'first');
      await first.done;
      const labels = ['w1', 'w2', 'w3', 'w4'];
      const waiters = labels.map((label) => request(store, 'c', log, label));
      await settle();
      let holder = first;
      for (let i = 0; i < waiters.length; i++) {
        await held(log[log.length - 1]!, holder.state)();
        await settle();
        // Exactly the next waiter in arrival order holds the lock now.
        same(`holders after ${i + 1} release(s)`, log, ['first', ...labels.slice(0, i + 1)]);
        holder = waiters[i]!;
      }
      await held('w4', holder.state)();
    },
  },
  {
    id: 'lock-aborted-waiter-skipped',
    group: LOCK,
    title: 'rejects a waiter whose signal aborts, and skips it',
    async run(fresh) {
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
      truthy('the aborted waiter is refused with a StoreLockAbortedError', b.state.error instanceof StoreLockAbortedError, b.state.error);
      same('holders after the abort', log, ['a']);
      await held('a', a.state)();
      await c.done;
      same('holders after a released', log, ['a', 'c']);
      await held('c', c.state)();
      // The lock is free again.
      await (await store.lock('c'))();
    },
  },
  {
    id: 'lock-already-aborted-refused',
    group: LOCK,
    title: 'rejects at once when the signal has already aborted',
    async run(fresh) {
      const store = await fresh();
      await rejects('a lock asked with an aborted signal', store.lock('c', AbortSignal.abort()), StoreLockAbortedError);
      // Nobody holds it afterwards.
      await (await store.lock('c'))();
    },
  },
  {
    id: 'lock-second-release-ignored',
    group: LOCK,
    title: "ignores a second release (it must not free the next holder's lock)",
    async run(fresh) {
      const store = await fresh();
      const log: string[] = [];
      const a = request(store, 'c', log, 'a');
      await a.done;
      const b = request(store, 'c', log, 'b');
      const c = request(store, 'c', log, 'c');
      await settle();
      await held('a', a.state)();
      await settle();
      same('holders after a released', log, ['a', 'b']);
      await held('a', a.state)();
      await settle();
      same("holders after a's second release", log, ['a', 'b']);
      await held('b', b.state)();
      await settle();
      same('holders after b released', log, ['a', 'b', 'c']);
      await held('c', c.state)();
    },
  },
  {
    id: 'lock-conversations-independent',
    group: LOCK,
    title: 'locks conversations independently',
    async run(fresh) {
      const store = await fresh();
      const releaseA = await store.lock('a');
      const releaseB = await store.lock('b');
      await releaseA();
      await releaseB();
    },
  },
  {
    id: 'lock-waiters-fail-on-close',
    group: LOCK,
    title: 'fails waiters when the store closes',
    async run(fresh) {
      const store = await fresh();
      const log: string[] = [];
      const a = request(store, 'c', log, 'a');
      await a.done;
      const b = request(store, 'c', log, 'b');
      await settle();
      await store.close();
      await b.done;
      truthy('the waiter is refused with a StoreError', b.state.error instanceof StoreError, b.state.error);
      // Saying why: the store closed (mutation seed 52: PostgreSQL's reason made "", the waiter refused with no message).
      truthy(
        'the waiter is told the store is closed',
        /closed/.test((b.state.error as Error | undefined)?.message ?? ''),
        (b.state.error as Error | undefined)?.message,
      );
      same('holders after the close', log, ['a']);
      await rejects('an append after the close', store.append('c', records(0, 1)), Error, /closed/);
      await held('a', a.state)();
    },
  },
  {
    id: 'snapshot-with-its-batch',
    group: SNAPSHOTS,
    needs: 'snapshots',
    title: 'stores a snapshot with its batch and hands back the latest one',
    async run(fresh) {
      const store = await snapshots(fresh);
      same('the snapshot before any', await store.readSnapshot('c'), undefined);
      // An id no conversation can have is refused, as by read and append, not answered "no snapshot" (mutation seed 52).
      await rejects('a snapshot read of an empty conversation id', store.readSnapshot(''), Error, /conversation id/);
      await store.append('c', records(0, 3), { snapshot: snap(3) });
      same('the snapshot stored with seqs 0-2', await store.readSnapshot('c'), snap(3));
      await store.append('c', records(3, 2));
      same('the snapshot after a batch without one', await store.readSnapshot('c'), snap(3));
      await store.append('c', records(5, 1), { snapshot: snap(6, 'x'.repeat(100_000)) });
      same('the latest snapshot', await store.readSnapshot('c'), snap(6, 'x'.repeat(100_000)));
      same("another conversation's snapshot", await store.readSnapshot('other'), undefined);
    },
  },
  {
    id: 'snapshot-refused-with-its-batch',
    group: SNAPSHOTS,
    needs: 'snapshots',
    title: 'stores no snapshot with a batch it refuses, and refuses a snapshot that is not at the end of its batch',
    async run(fresh) {
      const store = await snapshots(fresh);
      await store.append('c', records(0, 2), { snapshot: snap(2) });
      await rejects('a batch off its seqs with a snapshot', store.append('c', records(5, 1), { snapshot: snap(6) }), StoreConflictError);
      await rejects('a snapshot at 3 with seqs 2-3', store.append('c', records(2, 2), { snapshot: snap(3) }), Error, /not at the end of the batch/);
      same('the snapshot after both refusals', await store.readSnapshot('c'), snap(2));
      same('the records after both refusals', (await store.read('c')).length, 2);
    },
  },
  {
    id: 'read-range-sync-as-read',
    group: SNAPSHOTS,
    needs: 'snapshots',
    title: 'reads a range of records synchronously, as read returns them',
    async run(fresh) {
      const store = await snapshots(fresh);
      await store.append('c', records(0, 10));
      same('readRangeSync 3-7', store.readRangeSync('c', 3, 7), (await store.read('c', 3)).slice(0, 4));
      same('readRangeSync 8-20', store.readRangeSync('c', 8, 20), await store.read('c', 8));
      same('readRangeSync of an empty range', store.readRangeSync('c', 5, 5), []);
      same('readRangeSync of a conversation never written', store.readRangeSync('nobody', 0, 5), []);
    },
  },
];

/**
 * Runs one case on stores from `factory`, closing every store it opened (a
 * close that fails after the case passed is a failure of its own).
 */
export async function runStoreContractCase(c: StoreContractCase, factory: () => EventStore | Promise<EventStore>): Promise<void> {
  const opened: EventStore[] = [];
  const fresh = async () => {
    const store = await factory();
    opened.push(store);
    return store;
  };
  try {
    await c.run(fresh);
  } finally {
    for (const store of opened) await store.close();
  }
}
