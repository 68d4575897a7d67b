/**
 * The embedded default EventStore: one SQLite file through Node's built-in
 * `node:sqlite`, in WAL mode, one write transaction per appended batch.
 *
 * Gapless seqs are enforced twice: the batch is checked against the stored
 * `MAX(seq) + 1` inside a `BEGIN IMMEDIATE` transaction (which holds the write lock,
 * so a second process cannot slip a batch in between check and insert), and the
 * primary key (conversation, seq) refuses a duplicate outright.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { type EventRecord, toFrozenPlainData } from '../kernel/index.ts';
import { checkConversationId, checkFromSeq, checkRecordShapes, checkSeqs } from './batch-check.ts';
import { ConversationLocks } from './conversation-lock.ts';
import { checkStoreSchema, openSqliteReadOnly } from './sqlite-read-only.ts';
import { StoreConflictError, StoreCorruptionError, StoreError, type EventStore, type Release, type WriterClaimOptions } from './event-store.ts';
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
/** A row of the read statement: seq, type, v, at, ignorable, sources, payload. */
type StoredRow = readonly [unknown, unknown, unknown, unknown, unknown, unknown, unknown];

export class SqliteEventStore implements EventStore {
  readonly describe: string;
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #locks = new ConversationLocks();
  readonly #maxSeq: StatementSync;
  readonly #insert: StatementSync;
  readonly #readFrom: StatementSync;
  readonly #conversations: StatementSync;
  readonly #arrays: boolean;
  readonly #readOnly: boolean;
  readonly #writer: SqliteWriterClaim;
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
      this.#arrays = typeof this.#readFrom.setReturnArrays === 'function';
      if (this.#arrays) this.#readFrom.setReturnArrays(true);
      this.#conversations = db.prepare('SELECT DISTINCT conversation FROM events ORDER BY conversation');
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
    this.#writer = new SqliteWriterClaim(db, this.describe, options.writerClaim);
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
      PRAGMA user_version = ${SCHEMA_VERSION};
    `);
  }

  async append(conversationId: string, records: readonly EventRecord[]): Promise<void> {
    this.#checkOpen();
    if (this.#readOnly) throw new StoreError(`${this.describe}: opened read-only; nothing was stored`);
    checkConversationId(this.describe, conversationId);
    checkRecordShapes(this.describe, conversationId, records);
    if (records.length === 0) return;
    // Serialize before the transaction: a bad payload fails the batch without touching the file.
    const rows = records.map((r, i) => this.#serialize(conversationId, i, r));

    const db = this.#db;
    try {
      db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      throw this.#writeError(conversationId, 'could not start the write transaction', error);
    }
    try {
      this.#writer.checkHeld(); // fencing: a claim taken over by another process writes nothing more
      const max = (this.#maxSeq.get(conversationId) as Row).m;
      checkSeqs(conversationId, max === null ? 0 : Number(max) + 1, records);
      const insert = this.#insert;
      for (const row of rows) insert.run(conversationId, row.seq, row.type, row.v, row.at, row.ignorable, row.sources, row.payload);
      db.exec('COMMIT');
    } catch (error) {
      try {
        db.exec('ROLLBACK');
      } catch {
        // SQLite may already have rolled back (e.g. after SQLITE_FULL); the original error matters.
      }
      if (error instanceof StoreError) throw error;
      if (isConstraintViolation(error)) {
        // Another connection stored these seqs between our check and insert (cannot
        // happen under BEGIN IMMEDIATE, but the primary key is the last word).
        throw new StoreConflictError(
          conversationId,
          records[0]!.seq,
          records[0]!.seq,
          `append at seq ${records[0]!.seq} collides with stored events (${(error as Error).message}); nothing was stored`,
        );
      }
      throw this.#writeError(conversationId, 'the batch was rolled back, nothing was stored', error);
    }
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
    this.#closed = true;
    this.#locks.close(`${this.describe}: the store is closed`);
    this.#writer.release();
    this.#db.close();
  }

  #checkOpen(): void {
    if (this.#closed) throw new StoreError(`${this.describe}: the store is closed`);
  }

  #serialize(conversationId: string, index: number, r: EventRecord) {
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
