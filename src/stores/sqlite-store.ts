/**
 * The embedded default EventStore: one SQLite file through Node's built-in
 * `node:sqlite`, in WAL mode.
 *
 * Group commit: `append` checks and serializes its batch at once, then queues it;
 * every batch queued before the event loop's next check phase (`setImmediate`) —
 * from any number of conversations — is written in ONE transaction, and each
 * `append` resolves when that transaction has committed. The transaction costs
 * (write lock, WAL commit) are paid once per group instead of once per batch.
 *
 * What a failure takes with it (the contract of `EventStore.append` holds for
 * every batch of a group; docs/storage.md says it in the design's terms):
 * - a batch that does not continue its conversation (`StoreConflictError`), or
 *   whose rows SQLite refuses, is rolled back to a savepoint of its own and only
 *   its `append` rejects; the other batches of the group are committed;
 * - if the transaction cannot start or cannot commit (disk full, I/O error, the
 *   writer claim lost), every batch of the group is rolled back and every
 *   `append` of the group rejects: nothing of the group is stored.
 * A batch is never partly stored, and no `append` resolves before its batch is
 * committed. Closing the store commits what is queued first.
 *
 * Gapless seqs are enforced twice: the batch is checked against the stored
 * `MAX(seq) + 1` (and, within a group, against the batches of the same
 * conversation before it) inside a `BEGIN IMMEDIATE` transaction (which holds the
 * write lock, so a second process cannot slip a batch in between check and
 * insert), and the primary key (conversation, seq) refuses a duplicate outright.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { type EventRecord, toFrozenPlainData } from '../kernel/index.ts';
import { checkConversationId, checkFromSeq, checkRecordShapes, checkSeqs, checkSnapshotOption } from './batch-check.ts';
import { ConversationLocks } from './conversation-lock.ts';
import { checkStoreSchema, openSqliteReadOnly } from './sqlite-read-only.ts';
import {
  StoreConflictError,
  StoreCorruptionError,
  StoreError,
  type EventStore,
  type Release,
  type StoreAppendOptions,
  type StoredSnapshot,
  type WriterClaimOptions,
} from './event-store.ts';
import { SqliteWriterClaim, type WriterClaimTiming } from './sqlite-writer-claim.ts';

/** The schema version this code writes (`PRAGMA user_version`). */
const SCHEMA_VERSION = 1;

export interface SqliteEventStoreOptions {
  /**
   * `NORMAL` (default): in WAL mode a committed batch is in the WAL file before
   * `append` resolves, so it survives the process being killed (SIGKILL, OOM,
   * crash); only an OS crash or power loss can lose the last few batches, and
   * the database stays consistent even then. No fsync per batch keeps batched
   * appends fast. `FULL` fsyncs the WAL on every commit: durable across power
   * loss, at the price of one fsync per batch.
   */
  readonly synchronous?: 'NORMAL' | 'FULL';
  /** How long a write waits for another process's write lock before failing (ms). Default 5000. */
  readonly busyTimeoutMs?: number;
  /**
   * Open to read only (`loopgate replay`): the file is never created, migrated or
   * written, and must already hold loopgate's events table; `append` is refused.
   */
  readonly readOnly?: boolean;
  /** The cross-process writer claim a host takes (`claimWriter`, sqlite-writer-claim.ts). */
  readonly writerClaim?: WriterClaimTiming;
}

type Row = Record<string, unknown>;
/** A record as the columns of its row. */
interface SerializedRow {
  readonly seq: number;
  readonly type: string;
  readonly v: number;
  readonly at: number;
  readonly ignorable: 0 | 1;
  readonly sources: string | null;
  readonly payload: string;
}

/** A batch waiting for its group's transaction. */
interface Queued {
  readonly conversationId: string;
  readonly records: readonly EventRecord[];
  readonly rows: readonly SerializedRow[];
  readonly snapshot: StoredSnapshot | undefined;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}
/** A row of the read statement: seq, type, v, at, ignorable, sources, payload. */
type StoredRow = readonly [unknown, unknown, unknown, unknown, unknown, unknown, unknown];

export class SqliteEventStore implements EventStore {
  readonly describe: string;
  /** Each read parses its payloads from their stored text (`#parse`): they are the reader's own. */
  readonly readsOwnedJson = true;
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #locks = new ConversationLocks();
  readonly #maxSeq: StatementSync;
  readonly #insert: StatementSync;
  readonly #readFrom: StatementSync;
  readonly #readRange: StatementSync;
  readonly #conversations: StatementSync;
  /** Snapshot statements; undefined for a read-only file without the snapshots table. */
  readonly #snapshotSql: { readonly read: StatementSync; readonly write: StatementSync | undefined } | undefined;
  readonly #arrays: boolean;
  readonly #readOnly: boolean;
  readonly #writer: SqliteWriterClaim;
  readonly #tx:
    | {
        readonly begin: StatementSync;
        readonly commit: StatementSync;
        readonly rollback: StatementSync;
        readonly savepoint: StatementSync;
        readonly release: StatementSync;
        readonly rollbackTo: StatementSync;
      }
    | undefined;
  /** Batches waiting for the next group commit, in arrival order. */
  #queue: Queued[] = [];
  #groups = 0;
  #batches = 0;
  #scheduled = false;
  #closed = false;

  constructor(path: string, options: SqliteEventStoreOptions = {}) {
    if (typeof path !== 'string' || path.length === 0) {
      throw new StoreError(`sqlite store: the database path must be a non-empty string, got ${String(path)}`);
    }
    this.path = path;
    this.describe = `sqlite:${path}`;
    const synchronous = options.synchronous ?? 'NORMAL';
    if (synchronous !== 'NORMAL' && synchronous !== 'FULL') {
      throw new StoreError(`${this.describe}: option synchronous must be "NORMAL" or "FULL", got ${String(synchronous)}`);
    }

    this.#readOnly = options.readOnly === true;
    let db: DatabaseSync;
    try {
      db = this.#readOnly ? openSqliteReadOnly(path, options.busyTimeoutMs ?? 5000) : new DatabaseSync(path, { timeout: options.busyTimeoutMs ?? 5000 });
    } catch (error) {
      throw new StoreError(
        `${this.describe}: cannot open the database file (does its directory exist, and may this process write there?): ${(error as Error).message}`,
        { cause: error },
      );
    }
    try {
      if (this.#readOnly) checkStoreSchema(db, SCHEMA_VERSION);
      else this.#setUp(db, path, synchronous);
      this.#maxSeq = db.prepare('SELECT MAX(seq) AS m FROM events WHERE conversation = ?');
      this.#insert = db.prepare('INSERT INTO events (conversation, seq, type, v, at, ignorable, sources, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
      this.#readFrom = db.prepare('SELECT seq, type, v, at, ignorable, sources, payload FROM events WHERE conversation = ? AND seq >= ? ORDER BY seq');
      // Rows as arrays: several times faster than objects for long reads (Node >= 24;
      // older Nodes return objects, which #rowsFrom converts).
      this.#readRange = db.prepare(
        'SELECT seq, type, v, at, ignorable, sources, payload FROM events WHERE conversation = ? AND seq >= ? AND seq < ? ORDER BY seq',
      );
      this.#arrays = typeof this.#readFrom.setReturnArrays === 'function';
      if (this.#arrays) {
        this.#readFrom.setReturnArrays(true);
        this.#readRange.setReturnArrays(true);
      }
      const snapshots = db.prepare("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'snapshots'").get() !== undefined;
      this.#snapshotSql = snapshots
        ? {
            read: db.prepare('SELECT up_to, digest, body FROM snapshots WHERE conversation = ?'),
            write: this.#readOnly
              ? undefined
              : db.prepare(
                  'INSERT INTO snapshots (conversation, up_to, digest, body) VALUES (?, ?, ?, ?) ON CONFLICT (conversation) DO UPDATE SET up_to = excluded.up_to, digest = excluded.digest, body = excluded.body',
                ),
          }
        : undefined;
      this.#conversations = db.prepare('SELECT DISTINCT conversation FROM events ORDER BY conversation');
      this.#tx = this.#readOnly
        ? undefined
        : {
            begin: db.prepare('BEGIN IMMEDIATE'),
            commit: db.prepare('COMMIT'),
            rollback: db.prepare('ROLLBACK'),
            savepoint: db.prepare('SAVEPOINT batch'),
            release: db.prepare('RELEASE batch'),
            rollbackTo: db.prepare('ROLLBACK TO batch'),
          };
    } catch (error) {
      try {
        db.close();
      } catch {
        // The open already failed; the first error is the one to report.
      }
      throw new StoreError(`${this.describe}: cannot use this file as an event store (is it a SQLite database?): ${(error as Error).message}`, {
        cause: error,
      });
    }
    this.#db = db;
    this.#writer = new SqliteWriterClaim(db, this.describe, options.writerClaim, this.#readOnly || path === ':memory:' ? undefined : path);
  }

  /** Write transactions committed (groups) and the batches they carried, since this store was opened: for metrics. */
  get commits(): { readonly groups: number; readonly batches: number } {
    return { groups: this.#groups, batches: this.#batches };
  }

  /** Claims the file for this store object's writers: a second process's host refuses or waits (see sqlite-writer-claim.ts). */
  claimWriter(options?: WriterClaimOptions): Promise<void> {
    try {
      this.#checkOpen();
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#writer.claim(options);
  }

  /** Creates or migrates the file: WAL, the events table, the schema version. Never for a read-only store. */
  #setUp(db: DatabaseSync, path: string, synchronous: string): void {
    const mode = (db.prepare('PRAGMA journal_mode = WAL').get() as Row | undefined)?.journal_mode;
    if (mode !== 'wal' && path !== ':memory:') throw new Error(`could not switch to WAL mode (journal_mode is ${String(mode)})`);
    db.exec(`PRAGMA synchronous = ${synchronous}`); // why NORMAL by default: see SqliteEventStoreOptions.synchronous
    const version = Number((db.prepare('PRAGMA user_version').get() as Row).user_version);
    if (version > SCHEMA_VERSION) {
      throw new Error(`the schema version is ${version}, newer than this loopgate understands (${SCHEMA_VERSION})`);
    }
    db.exec(`
      CREATE TABLE IF NOT EXISTS events (
        conversation TEXT NOT NULL,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        v INTEGER NOT NULL,
        at REAL NOT NULL,
        ignorable INTEGER NOT NULL,
        sources TEXT NULL,
        payload TEXT NOT NULL,
        PRIMARY KEY (conversation, seq)
      );
      -- The latest snapshot of each conversation's derived state (added without a version
      -- change: an older loopgate ignores the table).
      CREATE TABLE IF NOT EXISTS snapshots (
        conversation TEXT NOT NULL PRIMARY KEY,
        up_to INTEGER NOT NULL,
        digest TEXT NOT NULL,
        body TEXT NOT NULL
      );
      PRAGMA user_version = ${SCHEMA_VERSION};
    `);
  }

  /**
   * Checks and serializes the batch now, then queues it for the next group
   * commit; resolves once the group's transaction has committed (see the header).
   */
  async append(conversationId: string, records: readonly EventRecord[], options?: StoreAppendOptions): Promise<void> {
    this.#checkOpen();
    if (this.#readOnly) throw new StoreError(`${this.describe}: opened read-only; nothing was stored`);
    checkConversationId(this.describe, conversationId);
    checkRecordShapes(this.describe, conversationId, records);
    const snapshot = checkSnapshotOption(this.describe, conversationId, records, options);
    if (records.length === 0) return;
    // Serialize before the transaction: a bad payload fails the batch without touching the file.
    const rows = records.map((r, i) => this.#serialize(conversationId, i, r));
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    this.#queue.push({ conversationId, records, rows, snapshot, resolve, reject });
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.#commitGroup());
    }
    return promise;
  }

  /**
   * Writes every queued batch in one transaction (see the header for what a failure
   * takes with it). First without a savepoint per batch: a batch whose seqs do not
   * continue its conversation is refused before any of its rows is written, so only
   * a row SQLite refuses needs one. If that happens the transaction is rolled back
   * and the group is written again with a savepoint around each batch
   * (`#commitIsolated`), which refuses that batch alone — the same outcome, paid for
   * only when a batch fails.
   */
  #commitGroup(): void {
    this.#scheduled = false;
    const group = this.#queue;
    this.#queue = [];
    if (group.length === 0) return;
    const tx = this.#tx!;
    try {
      tx.begin.run();
    } catch (error) {
      this.#failAll(group, 'could not start the write transaction', error);
      return;
    }
    /** Batches refused (their seqs), with why; nothing of them was written. */
    let refused: Map<Queued, unknown> | undefined;
    /** A batch's rows or snapshot failed to write (then the group is written again, isolated). */
    let rowsFailed = false;
    try {
      this.#writer.checkHeld(); // fencing: a claim taken over by another process writes nothing more
      const insert = this.#insert;
      /** Next seq of each conversation, as this transaction has it so far. */
      const next = new Map<string, number>();
      for (const batch of group) {
        const { conversationId, records, rows } = batch;
        let expected: number;
        try {
          expected = this.#expectedSeq(next, conversationId);
          checkSeqs(conversationId, expected, records);
        } catch (error) {
          (refused ??= new Map()).set(batch, error);
          continue;
        }
        rowsFailed = true;
        for (const row of rows) insert.run(conversationId, row.seq, row.type, row.v, row.at, row.ignorable, row.sources, row.payload);
        if (batch.snapshot) this.#snapshotSql!.write!.run(conversationId, batch.snapshot.upTo, batch.snapshot.digest, batch.snapshot.body);
        rowsFailed = false;
        next.set(conversationId, expected + records.length);
      }
      tx.commit.run();
    } catch (error) {
      try {
        tx.rollback.run();
      } catch {
        // SQLite may already have rolled back (e.g. after SQLITE_FULL); the original error matters.
      }
      if (rowsFailed) {
        // Nothing of this attempt stands; which batch SQLite refuses is found batch by batch.
        this.#commitIsolated(group);
        return;
      }
      // The fencing check or the commit failed: the batches refused on their own say why, every other one fails with the group.
      const alone = refused;
      if (alone) for (const [batch, reason] of alone) batch.reject(this.#batchError(batch, reason));
      this.#failAll(alone ? group.filter((b) => !alone.has(b)) : group, 'the group commit failed and was rolled back, nothing of this batch was stored', error);
      return;
    }
    let written = group.length;
    if (refused) {
      written -= refused.size;
      for (const [batch, error] of refused) batch.reject(this.#batchError(batch, error));
    }
    this.#groups++;
    this.#batches += written;
    for (const b of group) if (!refused?.has(b)) b.resolve();
  }

  /** The seq a conversation's next batch must start at, in this transaction. */
  #expectedSeq(next: Map<string, number>, conversationId: string): number {
    const known = next.get(conversationId);
    if (known !== undefined) return known;
    const max = (this.#maxSeq.get(conversationId) as Row).m;
    return max === null ? 0 : Number(max) + 1;
  }

  #failAll(batches: readonly Queued[], what: string, error: unknown): void {
    for (const b of batches) b.reject(error instanceof StoreError ? error : this.#writeError(b.conversationId, what, error));
  }

  /**
   * The group again, each batch in a savepoint of its own: a batch whose rows SQLite
   * refuses is rolled back alone and only its `append` rejects; if the transaction
   * cannot start or commit, every batch of the group rejects.
   */
  #commitIsolated(group: readonly Queued[]): void {
    const tx = this.#tx!;
    try {
      tx.begin.run();
    } catch (error) {
      this.#failAll(group, 'could not start the write transaction', error);
      return;
    }
    const written: Queued[] = [];
    const refused = new Set<Queued>();
    /** Next seq of each conversation, as this transaction has it so far. */
    const next = new Map<string, number>();
    try {
      this.#writer.checkHeld();
      const insert = this.#insert;
      for (const batch of group) {
        const { conversationId, records, rows } = batch;
        let savepoint = false;
        try {
          const expected = this.#expectedSeq(next, conversationId);
          checkSeqs(conversationId, expected, records);
          tx.savepoint.run();
          savepoint = true;
          for (const row of rows) insert.run(conversationId, row.seq, row.type, row.v, row.at, row.ignorable, row.sources, row.payload);
          if (batch.snapshot) this.#snapshotSql!.write!.run(conversationId, batch.snapshot.upTo, batch.snapshot.digest, batch.snapshot.body);
          tx.release.run();
          next.set(conversationId, expected + records.length);
          written.push(batch);
        } catch (error) {
          if (savepoint) {
            tx.rollbackTo.run(); // this batch only; throws if the whole transaction is gone (caught below)
            tx.release.run();
          }
          refused.add(batch);
          batch.reject(this.#batchError(batch, error));
        }
      }
      tx.commit.run();
    } catch (error) {
      try {
        tx.rollback.run();
      } catch {
        // SQLite may already have rolled back (e.g. after SQLITE_FULL); the original error matters.
      }
      // Every batch not already refused on its own: those written are rolled back, those after the failure were never written.
      this.#failAll(
        group.filter((b) => !refused.has(b)),
        'the group commit failed and was rolled back, nothing of this batch was stored',
        error,
      );
      return;
    }
    this.#groups++;
    this.#batches += written.length;
    for (const b of written) b.resolve();
  }

  /** Why one batch of a group was refused (rolled back to its savepoint; the rest of the group goes on). */
  #batchError(batch: Queued, error: unknown): StoreError {
    if (error instanceof StoreError) return error;
    const first = batch.records[0]!.seq;
    if (isConstraintViolation(error)) {
      // Another connection stored these seqs between our check and insert (cannot
      // happen under BEGIN IMMEDIATE, but the primary key is the last word).
      return new StoreConflictError(
        batch.conversationId,
        first,
        first,
        `append at seq ${first} collides with stored events (${(error as Error).message}); nothing was stored`,
      );
    }
    return this.#writeError(batch.conversationId, 'the batch was rolled back, nothing was stored', error);
  }

  async read(conversationId: string, fromSeq = 0): Promise<EventRecord[]> {
    this.#checkOpen();
    checkConversationId(this.describe, conversationId);
    checkFromSeq(this.describe, fromSeq);
    let rows: StoredRow[];
    try {
      const result = this.#readFrom.all(conversationId, fromSeq);
      rows = this.#arrays ? (result as unknown as StoredRow[]) : result.map((r) => [r.seq, r.type, r.v, r.at, r.ignorable, r.sources, r.payload] as const);
    } catch (error) {
      throw new StoreError(`${this.describe}: conversation "${conversationId}": read failed: ${(error as Error).message}`, { cause: error });
    }
    const out = new Array<EventRecord>(rows.length);
    for (let i = 0; i < rows.length; i++) out[i] = this.#parse(conversationId, fromSeq + i, rows[i]!);
    return out;
  }

  async readSnapshot(conversationId: string): Promise<StoredSnapshot | undefined> {
    this.#checkOpen();
    checkConversationId(this.describe, conversationId);
    if (!this.#snapshotSql) return undefined;
    let row: Row | undefined;
    try {
      row = this.#snapshotSql.read.get(conversationId) as Row | undefined;
    } catch (error) {
      throw new StoreError(`${this.describe}: conversation "${conversationId}": reading its snapshot failed: ${(error as Error).message}`, { cause: error });
    }
    if (!row) return undefined;
    const { up_to: upTo, digest, body } = row;
    // A malformed row is handed back as it is: the host's checks refuse it and read the whole log.
    return { upTo: Number(upTo), digest: String(digest), body: typeof body === 'string' ? body : String(body) };
  }

  readRangeSync(conversationId: string, from: number, to: number): EventRecord[] {
    this.#checkOpen();
    checkConversationId(this.describe, conversationId);
    checkFromSeq(this.describe, from);
    let rows: StoredRow[];
    try {
      const result = this.#readRange.all(conversationId, from, Math.max(from, to));
      rows = this.#arrays ? (result as unknown as StoredRow[]) : result.map((r) => [r.seq, r.type, r.v, r.at, r.ignorable, r.sources, r.payload] as const);
    } catch (error) {
      throw new StoreError(`${this.describe}: conversation "${conversationId}": read failed: ${(error as Error).message}`, { cause: error });
    }
    const out = new Array<EventRecord>(rows.length);
    for (let i = 0; i < rows.length; i++) out[i] = this.#parse(conversationId, from + i, rows[i]!);
    return out;
  }

  async listConversations(): Promise<string[]> {
    this.#checkOpen();
    try {
      return (this.#conversations.all() as Row[]).map((row) => String(row.conversation));
    } catch (error) {
      throw new StoreError(`${this.describe}: listing the conversations failed: ${(error as Error).message}`, { cause: error });
    }
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
    this.#commitGroup(); // what was handed to the store is written, not dropped
    this.#closed = true;
    this.#locks.close(`${this.describe}: the store is closed`);
    this.#writer.release();
    this.#db.close();
  }

  #checkOpen(): void {
    if (this.#closed) throw new StoreError(`${this.describe}: the store is closed`);
  }

  #serialize(conversationId: string, index: number, r: EventRecord): SerializedRow {
    let payload: string;
    try {
      // Plain JSON data only: JSON.stringify would silently turn NaN into null and drop
      // undefined fields, so what is read back would differ from what was appended.
      payload = JSON.stringify(toFrozenPlainData(r.payload, 'payload'));
    } catch (error) {
      throw new StoreError(`${this.describe}: conversation "${conversationId}": batch record ${index} (seq ${r.seq}): ${(error as Error).message}`, {
        cause: error,
      });
    }
    return {
      seq: r.seq,
      type: r.type,
      v: r.v,
      at: r.at,
      ignorable: r.ignorable ? 1 : 0,
      sources: r.sources === undefined ? null : JSON.stringify(r.sources),
      payload,
    };
  }

  /** A stored row back to a record; anything that does not read back cleanly is corruption (nothing is deleted). */
  #parse(conversationId: string, expectedSeq: number, row: StoredRow): EventRecord {
    const [seq, type, v, at, ignorable, sources, payloadText] = row;
    const corrupt = (at: number, reason: string): StoreCorruptionError => new StoreCorruptionError(this.describe, conversationId, at, reason);
    if (seq !== expectedSeq) {
      throw corrupt(expectedSeq, `the record is missing (the next stored seq is ${String(seq)}); seqs must be gapless`);
    }
    if (typeof type !== 'string' || type.length === 0) throw corrupt(expectedSeq, `type is ${JSON.stringify(type)}`);
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw corrupt(expectedSeq, `version is ${String(v)}`);
    if (typeof at !== 'number' || !Number.isFinite(at)) throw corrupt(expectedSeq, `time is ${String(at)}`);
    if (ignorable !== 0 && ignorable !== 1) throw corrupt(expectedSeq, `ignorable flag is ${String(ignorable)}`);
    if (typeof payloadText !== 'string') {
      throw corrupt(expectedSeq, `payload is not text (${payloadText === null ? 'null' : typeof payloadText})`);
    }
    let payload: unknown;
    try {
      payload = JSON.parse(payloadText);
    } catch (error) {
      throw corrupt(expectedSeq, `payload is not valid JSON (a torn or overwritten record?): ${(error as Error).message}`);
    }
    const record = { seq: expectedSeq, type, v, at, payload, ignorable: ignorable === 1 };
    if (sources === null) return record;
    let parsed: unknown;
    try {
      parsed = typeof sources === 'string' ? JSON.parse(sources) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!Array.isArray(parsed) || !parsed.every((s) => Number.isSafeInteger(s) && s >= 0 && s < expectedSeq)) {
      throw corrupt(expectedSeq, `sources are not a list of earlier seqs: ${String(sources).slice(0, 80)}`);
    }
    return { ...record, sources: parsed as number[] };
  }

  #writeError(conversationId: string, what: string, error: unknown): StoreError {
    return new StoreError(`${this.describe}: conversation "${conversationId}": append failed, ${what}: ${(error as Error).message}`, { cause: error });
  }
}

function isConstraintViolation(error: unknown): boolean {
  const e = error as { code?: unknown; errcode?: unknown; message?: unknown };
  // node:sqlite reports SQLITE_CONSTRAINT_PRIMARYKEY as errcode 1555 (extended) / 19 (primary).
  return e?.errcode === 1555 || e?.errcode === 19 || (typeof e?.message === 'string' && e.message.includes('UNIQUE constraint failed'));
}
