/**
 * What survives every crash of a case: the store under the world's faults
 * (faulty-store.ts). The loop driven directly, and several production hosts
 * sharing one store (as on PostgreSQL), keep it in memory; one production host
 * keeps it in a real SQLite file, the store a deploy runs on by default — so
 * every production-host case also certifies the SQLite store's writes, group
 * commit, snapshots and reads.
 *
 * Besides the store's own methods, the harness reads what is stored without
 * going through a process: `count` and `peek`.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventRecord } from '../../kernel/index.ts';
import type { EventStore, Release, StoreAppendOptions, StoredSnapshot } from '../../stores/event-store.ts';
import type { MemoryEventStore } from '../../stores/memory-store.ts';
import { SqliteEventStore } from '../../stores/sqlite-store.ts';

export interface CaseStore extends EventStore {
  readSnapshot(conversationId: string): Promise<StoredSnapshot | undefined>;
  readRangeSync(conversationId: string, from: number, to: number): EventRecord[];
  /** Records stored for the conversation. */
  count(conversationId: string): number;
  /** The stored records, read synchronously (not a copy to change). */
  peek(conversationId: string): readonly EventRecord[];
}

/**
 * The case's store in a SQLite file of its own (on tmpfs where there is one).
 * When the case is over its records are read back whole into memory and the
 * file is removed (`freeze`): what the case's processes still read afterwards
 * (a log whose older events are read when first wanted) comes from that copy.
 */
export class SqliteCaseStore implements CaseStore {
  readonly #directory: string;
  readonly #store: SqliteEventStore;
  #frozen: MemoryEventStore | undefined;
  /** Per conversation: records stored (each successful append ends at a new count), and the last peek at that count. */
  readonly #counts = new Map<string, number>();
  readonly #peeked = new Map<string, { readonly count: number; readonly records: readonly EventRecord[] }>();

  constructor() {
    this.#directory = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), `loopgate-case-${process.pid}-`));
    this.#store = new SqliteEventStore(join(this.#directory, 'case.db'));
  }

  get describe(): string {
    return this.#store.describe;
  }

  async append(conversationId: string, records: readonly EventRecord[], options?: StoreAppendOptions): Promise<void> {
    if (this.#frozen) throw new Error('the case is over: its store takes no more writes');
    await this.#store.append(conversationId, records, options);
    const last = records[records.length - 1];
    if (last) this.#counts.set(conversationId, Math.max(this.count(conversationId), last.seq + 1));
  }

  read(conversationId: string, fromSeq?: number): Promise<EventRecord[]> {
    return (this.#frozen ?? this.#store).read(conversationId, fromSeq);
  }

  readSnapshot(conversationId: string): Promise<StoredSnapshot | undefined> {
    return (this.#frozen ?? this.#store).readSnapshot(conversationId);
  }

  readRangeSync(conversationId: string, from: number, to: number): EventRecord[] {
    return (this.#frozen ?? this.#store).readRangeSync(conversationId, from, to);
  }

  listConversations(): Promise<string[]> {
    return (this.#frozen ?? this.#store).listConversations();
  }

  lock(conversationId: string, signal?: AbortSignal): Promise<Release> {
    return (this.#frozen ?? this.#store).lock(conversationId, signal);
  }

  async close(): Promise<void> {
    // A process closing its connection does not close what every process of the case shares: `dispose` does.
  }

  count(conversationId: string): number {
    return this.#counts.get(conversationId) ?? 0;
  }

  peek(conversationId: string): readonly EventRecord[] {
    if (this.#frozen) return this.#frozen.peek(conversationId);
    const count = this.count(conversationId);
    const seen = this.#peeked.get(conversationId);
    if (seen?.count === count) return seen.records;
    const records = Object.freeze(this.#store.readRangeSync(conversationId, 0, count));
    this.#peeked.set(conversationId, { count, records });
    return records;
  }

  /** The case is over: `copy` holds every record read back from the file; reads go to it, and the file is removed. */
  async freeze(copy: MemoryEventStore): Promise<void> {
    this.#frozen = copy;
    try {
      await this.#store.close();
    } finally {
      rmSync(this.#directory, { recursive: true, force: true });
    }
  }
}
