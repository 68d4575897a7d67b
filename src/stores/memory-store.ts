/**
 * The in-memory EventStore for the harness and tests. Same contract as the
 * durable stores (see store-conformance.ts), plus fault hooks so a test can make
 * a persistence call fail and check the failure surfaces instead of vanishing.
 */
import { type EventRecord, isRecentlyLogged, toFrozenPlainData, WRITTEN } from '../kernel/index.ts';
import { checkConversationId, checkFromSeq, checkRecordShapes, checkSeqs, checkSnapshotOption } from './batch-check.ts';
import { ConversationLocks } from './conversation-lock.ts';
import { StoreError, type StoreAppendOptions, type EventStore, type Release, type StoredSnapshot } from './event-store.ts';

/** Hooks run before an operation touches the data; throwing (or rejecting) fails it with nothing changed. */
export interface MemoryStoreFaults {
  beforeAppend?(conversationId: string, records: readonly EventRecord[]): void | Promise<void>;
  beforeRead?(conversationId: string, fromSeq: number): void | Promise<void>;
}

export interface MemoryEventStoreOptions {
  readonly faults?: MemoryStoreFaults;
  /** Shown in messages; defaults to `memory`. */
  readonly describe?: string;
}

/** What a finished append returns (settled, shared: the kernel's `WRITTEN`, so a flush knows the batch is stored). */
const APPENDED: Promise<void> = WRITTEN;

export class MemoryEventStore implements EventStore {
  readonly describe: string;
  readonly #conversations = new Map<string, EventRecord[]>();
  readonly #snapshots = new Map<string, StoredSnapshot>();
  readonly #locks = new ConversationLocks();
  readonly #faults: MemoryStoreFaults;
  readonly #appendFailures: Error[] = [];
  readonly #readFailures: Error[] = [];
  /** The last append that went through the `beforeAppend` hook, settled either way (the next one is stored after it). */
  #lastHooked: Promise<void> = APPENDED;
  #closed = false;

  constructor(options: MemoryEventStoreOptions = {}) {
    this.describe = options.describe ?? 'memory';
    this.#faults = options.faults ?? {};
  }

  /** The next append rejects with `error` (queued: call twice to fail two appends); nothing is stored. */
  failNextAppend(error: Error = new StoreError(`${this.describe}: injected append failure`)): void {
    this.#appendFailures.push(error);
  }

  /** The next read rejects with `error`. */
  failNextRead(error: Error = new StoreError(`${this.describe}: injected read failure`)): void {
    this.#readFailures.push(error);
  }

  /** Stored event count of a conversation (synchronous, for assertions). */
  count(conversationId: string): number {
    return this.#conversations.get(conversationId)?.length ?? 0;
  }

  /**
   * Without a `beforeAppend` hook the append is done before this returns (the
   * promise is one already settled: no async function, no promise of its own per
   * call); with the hook, it waits for the hook first. Either way a refusal is a
   * rejection, never a throw.
   */
  append(conversationId: string, records: readonly EventRecord[], options?: StoreAppendOptions): Promise<void> {
    let snapshot: StoredSnapshot | undefined;
    try {
      this.#checkOpen();
      checkConversationId(this.describe, conversationId);
      checkRecordShapes(this.describe, conversationId, records);
      snapshot = checkSnapshotOption(this.describe, conversationId, records, options);
      const injected = this.#appendFailures.shift();
      if (injected) throw injected;
      if (this.#faults.beforeAppend === undefined) {
        this.#store(conversationId, records, snapshot);
        return APPENDED;
      }
    } catch (error) {
      return Promise.reject(error);
    }
    const appended = this.#appendAfterHook(this.#faults.beforeAppend, this.#lastHooked, conversationId, records, snapshot);
    this.#lastHooked = appended.catch(() => undefined);
    return appended;
  }

  /**
   * The hook runs at once; the batch is stored only after every batch appended
   * before it is (stored or refused): batches are applied in the order `append`
   * was called, as a durable store's group commit applies them, however long
   * each one's hook takes.
   */
  async #appendAfterHook(
    before: NonNullable<MemoryStoreFaults['beforeAppend']>,
    previous: Promise<void>,
    conversationId: string,
    records: readonly EventRecord[],
    snapshot: StoredSnapshot | undefined,
  ): Promise<void> {
    try {
      await before(conversationId, records);
    } finally {
      await previous;
    }
    this.#checkOpen();
    this.#store(conversationId, records, snapshot);
  }

  /** Checked whole, then stored whole, synchronously: no other append can slip in between. */
  #store(conversationId: string, records: readonly EventRecord[], snapshot: StoredSnapshot | undefined): void {
    const stored = this.#conversations.get(conversationId) ?? [];
    checkSeqs(conversationId, stored.length, records);
    if (records.length === 0) return;
    const frozen = new Array<EventRecord>(records.length);
    for (let i = 0; i < records.length; i++) {
      const record = records[i]!;
      // An event a log just stored is what the copy would make of it (frozen, checked, a record's keys in order).
      frozen[i] = isRecentlyLogged(record) ? record : freezeRecord(this.describe, conversationId, i, record);
    }
    if (stored.length === 0) this.#conversations.set(conversationId, stored);
    for (const record of frozen) stored.push(record);
    if (snapshot) this.#snapshots.set(conversationId, Object.freeze({ upTo: snapshot.upTo, digest: snapshot.digest, body: snapshot.body }));
  }

  async readSnapshot(conversationId: string): Promise<StoredSnapshot | undefined> {
    this.#checkOpen();
    checkConversationId(this.describe, conversationId);
    return this.#snapshots.get(conversationId);
  }

  readRangeSync(conversationId: string, from: number, to: number): EventRecord[] {
    this.#checkOpen();
    checkConversationId(this.describe, conversationId);
    checkFromSeq(this.describe, from);
    return (this.#conversations.get(conversationId) ?? []).slice(from, Math.max(from, to));
  }

  /** Replaces a conversation's stored snapshot (tests: a damaged or stale one). */
  putSnapshot(conversationId: string, snapshot: StoredSnapshot | undefined): void {
    if (snapshot === undefined) this.#snapshots.delete(conversationId);
    else this.#snapshots.set(conversationId, snapshot);
  }

  async read(conversationId: string, fromSeq = 0): Promise<EventRecord[]> {
    this.#checkOpen();
    checkConversationId(this.describe, conversationId);
    checkFromSeq(this.describe, fromSeq);
    const injected = this.#readFailures.shift();
    if (injected) throw injected;
    await this.#faults.beforeRead?.(conversationId, fromSeq);
    this.#checkOpen();
    // Records are frozen, so handing out the stored objects cannot change the store.
    return (this.#conversations.get(conversationId) ?? []).slice(fromSeq);
  }

  /** The stored records, synchronously and without fault hooks: for a harness inspecting what was persisted. */
  peek(conversationId: string): readonly EventRecord[] {
    return this.#conversations.get(conversationId) ?? [];
  }

  async listConversations(): Promise<string[]> {
    this.#checkOpen();
    return [...this.#conversations.keys()].sort();
  }

  lock(conversationId: string, signal?: AbortSignal): Promise<Release> {
    try {
      this.#checkOpen();
      checkConversationId(this.describe, conversationId);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#locks.acquire(conversationId, signal);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#locks.close(`${this.describe}: the store is closed`);
  }

  #checkOpen(): void {
    if (this.#closed) throw new StoreError(`${this.describe}: the store is closed`);
  }
}

/** A deep frozen copy, refusing payloads that are not plain JSON data (they would not survive a durable store). */
function freezeRecord(store: string, conversationId: string, index: number, r: EventRecord): EventRecord {
  let payload: unknown;
  let sources: readonly number[] | undefined;
  try {
    payload = toFrozenPlainData(r.payload, 'payload');
    if (r.sources !== undefined) sources = toFrozenPlainData(r.sources, 'sources') as readonly number[];
  } catch (error) {
    throw new StoreError(`${store}: conversation "${conversationId}": batch record ${index} (seq ${r.seq}): ${(error as Error).message}`, { cause: error });
  }
  // Built in one literal either way (no spread): the same keys, in the same order.
  const record: EventRecord =
    sources !== undefined
      ? { seq: r.seq, type: r.type, v: r.v, at: r.at, payload, ignorable: r.ignorable, sources }
      : { seq: r.seq, type: r.type, v: r.v, at: r.at, payload, ignorable: r.ignorable };
  return Object.freeze(record);
}
