/**
 * The shared EventStore for many hosts: PostgreSQL through `pg`.
 *
 * - Group commit (postgres-group-commit.ts): batches appended while a group is
 *   being written — of any conversations — go in together, in one transaction.
 *   Inside it, each conversation's append lock (`pg_advisory_xact_lock`) is taken,
 *   each batch is checked against the stored `max(seq) + 1`, and the rows go in
 *   with one INSERT. What a failure takes with it is said there.
 * - Gapless seqs are the database's rule too, whoever writes: the primary key
 *   (conversation, seq) refuses duplicates, and a foreign key from each row to its
 *   predecessor (conversation, seq - 1) refuses a row after a gap (and refuses
 *   deleting a row from the middle).
 * - Payloads are stored as TEXT holding the JSON the store wrote, not JSONB: JSONB
 *   reorders and deduplicates keys, normalizes numbers and refuses `\u0000`, so
 *   what is read back would not be exactly what was appended (and the log is the
 *   only source of truth). The store never queries inside payloads.
 * - The conversation lock is a session-level advisory lock (see postgres-store-lock.ts).
 * - Connecting never hangs: every connection attempt (and every wait for a free
 *   pooled connection) gives up after `connectTimeoutMs`, and failures name the
 *   target with the password masked. Queries themselves have no timeout (keepalive
 *   is on); waiting for a conversation lock is meant to wait, and is abortable.
 */
import pg from 'pg';
import { type EventRecord, toFrozenPlainData } from '../kernel/index.ts';
import { checkConversationId, checkFromSeq, checkRecordShapes, checkSeqs } from './batch-check.ts';
import { StoreConflictError, StoreCorruptionError, StoreError, type EventStore, type Release } from './event-store.ts';
import { PgGroupCommit, undoFailed, type PgBatch } from './postgres-group-commit.ts';
import { AdvisoryLocks, advisoryKey } from './postgres-store-lock.ts';
import type { Queryable } from './serial-queries.ts';
import { checkPostgresUrl, describeConnectError, passwordOf, scrub } from './postgres-store-url.ts';

/** The schema version this code writes (row `schema_version` of `loopgate_meta`). */
const SCHEMA_VERSION = 1;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export interface PostgresEventStoreOptions {
  /** The schema holding loopgate's tables (created if missing). Default `public`. */
  readonly schema?: string;
  /** How long one connection attempt may take before it fails (ms). Default: the URL's `connect_timeout` (seconds, as in libpq), else 5000. */
  readonly connectTimeoutMs?: number;
  /** Connections for reads and appends. Default 10. */
  readonly poolSize?: number;
  /**
   * Connections for contended conversation locks: a turn that had to wait for
   * another process's turn on the same conversation holds one while it runs
   * (uncontended locks share one connection). Default 50.
   */
  readonly maxLockConnections?: number;
  /** Shown in `pg_stat_activity`. Default `loopgate`. */
  readonly applicationName?: string;
  /** Create the schema and tables if missing (default). `false`: refuse to open instead (for read-only inspection). */
  readonly create?: boolean;
}

/** A row of the read statement: seq, type, v, at, ignorable, sources, payload. */
type StoredRow = readonly [unknown, unknown, unknown, unknown, unknown, unknown, unknown];

export class PostgresEventStore implements EventStore {
  /** The URL with the password masked, e.g. `postgres://loopgate:****@db:5432/agents`. */
  readonly describe: string;
  /** Each read parses its payloads from their stored text (`#parse`): they are the reader's own. */
  readonly readsOwnedJson = true;
  readonly schema: string;
  readonly #pool: pg.Pool;
  readonly #lockPool: pg.Pool;
  readonly #locks: AdvisoryLocks;
  readonly #connectTimeoutMs: number;
  readonly #poolSize: number;
  readonly #secret: string | undefined;
  readonly #sql: {
    readonly maxSeq: string;
    readonly maxSeqs: string;
    readonly insert: string;
    readonly insertMany: string;
    readonly read: string;
    readonly conversations: string;
  };
  readonly #group: PgGroupCommit;
  #closed = false;

  /**
   * Connects, creates the tables if missing, and checks the schema version.
   * Rejects with a `StoreError` naming the masked URL when it cannot.
   */
  static async open(url: string, options: PostgresEventStoreOptions = {}): Promise<PostgresEventStore> {
    const store = new PostgresEventStore(url, options);
    try {
      await store.#setUp(options.create ?? true);
    } catch (error) {
      await store.close().catch(() => undefined);
      throw error;
    }
    return store;
  }

  /** Prefer `open`, which also connects and sets up the tables; this only checks the arguments. */
  constructor(url: string, options: PostgresEventStoreOptions = {}) {
    this.describe = checkPostgresUrl(url);
    this.#secret = passwordOf(url);
    const schema = options.schema ?? 'public';
    if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) {
      throw new StoreError(`${this.describe}: option schema must be a lower-case SQL name (letters, digits, _; at most 63), got ${JSON.stringify(schema)}`);
    }
    this.schema = schema;
    this.#connectTimeoutMs = positiveInt(this.describe, 'connectTimeoutMs', options.connectTimeoutMs, urlConnectTimeoutMs(url) ?? 5_000);
    const poolSize = positiveInt(this.describe, 'poolSize', options.poolSize, 10);
    this.#poolSize = poolSize;
    const maxLockConnections = positiveInt(this.describe, 'maxLockConnections', options.maxLockConnections, 50);
    const applicationName = options.applicationName ?? 'loopgate';

    const base: pg.PoolConfig = {
      connectionString: url,
      connectionTimeoutMillis: this.#connectTimeoutMs,
      keepAlive: true,
      idleTimeoutMillis: 30_000,
      // Idle pooled connections do not keep a process (e.g. a CLI command) alive.
      allowExitOnIdle: true,
    };
    this.#pool = new pg.Pool({ ...base, max: poolSize, application_name: applicationName });
    this.#lockPool = new pg.Pool({ ...base, max: maxLockConnections, application_name: `${applicationName}-lock` });
    // An idle connection that breaks (server restart) is dropped by the pool; without
    // a listener the 'error' event would crash the process.
    this.#pool.on('error', () => undefined);
    this.#lockPool.on('error', () => undefined);

    const events = `${quoteIdent(schema)}.loopgate_events`;
    this.#sql = {
      maxSeq: `SELECT max(seq) AS m FROM ${events} WHERE conversation = $1`,
      maxSeqs: `SELECT conversation, max(seq) AS m FROM ${events} WHERE conversation = ANY($1::text[]) GROUP BY conversation`,
      insert: `INSERT INTO ${events} (conversation, seq, type, v, at, ignorable, sources, payload)
               SELECT $1, * FROM unnest($2::bigint[], $3::text[], $4::integer[], $5::float8[], $6::boolean[], $7::text[], $8::text[])`,
      insertMany: `INSERT INTO ${events} (conversation, seq, type, v, at, ignorable, sources, payload)
               SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::integer[], $5::float8[], $6::boolean[], $7::text[], $8::text[])`,
      read: `SELECT seq, type, v, at, ignorable, sources, payload FROM ${events} WHERE conversation = $1 AND seq >= $2 ORDER BY seq`,
      // Every conversation has a row at seq 0 (the predecessor key guarantees it), and a
      // partial index holds exactly those rows: no scan over all events.
      conversations: `SELECT conversation FROM ${events} WHERE seq = 0 ORDER BY conversation COLLATE "C"`,
    };
    this.#locks = new AdvisoryLocks({
      describe: this.describe,
      newClient: () =>
        new pg.Client({ connectionString: url, connectionTimeoutMillis: this.#connectTimeoutMs, keepAlive: true, application_name: `${applicationName}-lock` }),
      describeError: (error) => this.#errorText(error),
      lockPool: this.#lockPool,
      keyOf: (conversationId) => advisoryKey(schema, 'turn', conversationId),
      appendKeyOf: (conversationId) => advisoryKey(schema, 'append', conversationId),
      cancelBackend: async (pid) => {
        await this.#pool.query('SELECT pg_cancel_backend($1)', [pid]);
      },
    });
    this.#group = new PgGroupCommit({
      connect: (what) => this.#connect(what),
      appendKey: (conversationId) => advisoryKey(schema, 'append', conversationId).toString(),
      sql: this.#sql,
      appendAlone: (batch) => this.#appendAlone(batch),
      writeError: (batch, stage, error) => this.#writeError(batch, stage, error),
    });
  }

  /**
   * Checks and serializes the batch now, then hands it to the group commit;
   * resolves once the group's transaction has committed.
   */
  async append(conversationId: string, records: readonly EventRecord[]): Promise<void> {
    this.#checkOpen();
    this.#checkId(conversationId);
    checkRecordShapes(this.describe, conversationId, records);
    if (records.length === 0) return;
    // Serialize before the transaction: a bad payload fails the batch without a round trip.
    const columns = this.#serialize(conversationId, records);
    return this.#group.append({ conversationId, records, columns });
  }

  /** One batch in a transaction of its own: the group's fallback when the database refused the group's rows. */
  async #appendAlone(batch: PgBatch): Promise<void> {
    const { conversationId, records, columns } = batch;
    const client = await this.#connect(`conversation "${conversationId}": append failed, nothing was stored`);
    const ignore = (): void => undefined;
    client.on('error', ignore);
    let broken: Error | undefined;
    let stage: 'begin' | 'write' | 'commit' = 'begin';
    try {
      await client.query('BEGIN');
      stage = 'write';
      await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [advisoryKey(this.schema, 'append', conversationId).toString()]);
      const max = (await client.query<{ m: string | null }>({ name: 'loopgate_max_seq', text: this.#sql.maxSeq, values: [conversationId] })).rows[0]?.m ?? null;
      checkSeqs(conversationId, max === null ? 0 : Number(max) + 1, records);
      await client.query({ name: 'loopgate_insert', text: this.#sql.insert, values: [conversationId, ...columns] });
      stage = 'commit';
      await client.query('COMMIT');
    } catch (error) {
      broken = await undoFailed(client, stage, error);
      throw this.#writeError(batch, stage === 'commit' ? 'commit' : 'write', error);
    } finally {
      client.off('error', ignore);
      client.release(broken ?? false);
    }
  }

  /** A failed write as the error its `append` rejects with. */
  #writeError(batch: PgBatch, stage: 'write' | 'commit', error: unknown): StoreError {
    if (error instanceof StoreError) return error;
    const { conversationId, records } = batch;
    const code = (error as { code?: unknown }).code;
    if (code === '23505' || code === '23503') {
      // The database's own rule (primary key or predecessor key) refused the batch.
      return new StoreConflictError(
        conversationId,
        records[0]!.seq,
        records[0]!.seq,
        `append at seq ${records[0]!.seq} refused by the database (${this.#clean(error)}); nothing was stored`,
      );
    }
    if (stage === 'commit') {
      return new StoreError(
        `${this.describe}: conversation "${conversationId}": append failed at commit, the batch may or may not be stored (read the conversation back to know): ${this.#clean(error)}`,
        { cause: error },
      );
    }
    return new StoreError(
      `${this.describe}: conversation "${conversationId}": append failed, the batch was rolled back, nothing was stored: ${this.#clean(error)}`,
      {
        cause: error,
      },
    );
  }

  async read(conversationId: string, fromSeq = 0): Promise<EventRecord[]> {
    this.#checkOpen();
    this.#checkId(conversationId);
    checkFromSeq(this.describe, fromSeq);
    let rows: StoredRow[];
    try {
      const result = await this.#pool.query({ name: 'loopgate_read', text: this.#sql.read, values: [conversationId, fromSeq], rowMode: 'array' });
      rows = result.rows as unknown as StoredRow[];
    } catch (error) {
      throw new StoreError(`${this.describe}: conversation "${conversationId}": read failed: ${this.#errorText(error)}`, { cause: error });
    }
    const out = new Array<EventRecord>(rows.length);
    for (let i = 0; i < rows.length; i++) out[i] = this.#parse(conversationId, fromSeq + i, rows[i]!);
    return out;
  }

  async listConversations(): Promise<string[]> {
    this.#checkOpen();
    try {
      const result = await this.#pool.query<{ conversation: string }>(this.#sql.conversations);
      return result.rows.map((row) => row.conversation);
    } catch (error) {
      throw new StoreError(`${this.describe}: listing conversations failed: ${this.#errorText(error)}`, { cause: error });
    }
  }

  lock(conversationId: string, signal?: AbortSignal): Promise<Release> {
    try {
      this.#checkOpen();
      this.#checkId(conversationId);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#locks.lock(conversationId, signal);
  }

  /**
   * Fails lock waiters, ends the connections holding conversation locks (so other
   * hosts can take them), and waits for appends in flight before disconnecting.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#group.drained(); // appends handed over before the close get their answers
    await this.#locks.close(`${this.describe}: the store is closed`);
    await Promise.allSettled([this.#lockPool.end(), this.#pool.end()]);
  }

  async #setUp(create: boolean): Promise<void> {
    const client = await this.#connect();
    const q = quoteIdent(this.schema);
    try {
      // Already set up: only check the version (no DDL, so a read-only role can open it).
      const tables = await client.query<{ events: string | null; meta: string | null }>('SELECT to_regclass($1) AS events, to_regclass($2) AS meta', [
        `${q}.loopgate_events`,
        `${q}.loopgate_meta`,
      ]);
      if (tables.rows[0]?.events && tables.rows[0]?.meta) {
        const found = await client.query<{ value: string }>(`SELECT value FROM ${q}.loopgate_meta WHERE key = 'schema_version'`);
        this.#checkVersion(found.rows[0]?.value);
        return;
      }
      if (!create) throw new StoreError(`${this.describe}: schema "${this.schema}" holds no loopgate event tables (is it the schema the hosts write to?)`);
      await client.query('BEGIN');
      // Hosts starting together must not race to create the same tables.
      await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [advisoryKey(this.schema, 'setup').toString()]);
      const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [this.schema]);
      if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${q}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${q}.loopgate_meta (key text PRIMARY KEY, value text NOT NULL)`);
      const found = await client.query<{ value: string }>(`SELECT value FROM ${q}.loopgate_meta WHERE key = 'schema_version'`);
      this.#checkVersion(found.rows[0]?.value);
      await client.query(`
        CREATE TABLE IF NOT EXISTS ${q}.loopgate_events (
          conversation text NOT NULL,
          seq bigint NOT NULL CHECK (seq >= 0),
          prev_seq bigint GENERATED ALWAYS AS (CASE WHEN seq > 0 THEN seq - 1 END) STORED,
          type text NOT NULL,
          v integer NOT NULL,
          at double precision NOT NULL,
          ignorable boolean NOT NULL,
          sources text NULL,
          payload text NOT NULL,
          PRIMARY KEY (conversation, seq),
          FOREIGN KEY (conversation, prev_seq) REFERENCES ${q}.loopgate_events (conversation, seq)
        )`);
      // A table of that name made by something else is not taken: writing to it would rest the gapless rule on keys it
      // may not have (outside probe 51, LOW-3).
      const lacks = await shapeProblems(client, this.schema);
      if (lacks.length > 0)
        throw new StoreError(
          `${this.describe}: schema "${this.schema}" holds a table loopgate_events that is not loopgate's (${lacks.join('; ')}): drop it, or give loopgate a schema of its own (store: { schema })`,
        );
      await client.query(`CREATE INDEX IF NOT EXISTS loopgate_conversations ON ${q}.loopgate_events (conversation COLLATE "C") WHERE seq = 0`);
      await client.query(`INSERT INTO ${q}.loopgate_meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO NOTHING`, [String(SCHEMA_VERSION)]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      if (error instanceof StoreError) throw error;
      throw new StoreError(
        `${this.describe}: cannot set up the event tables in schema "${this.schema}" (may the role create them there?): ${this.#clean(error)}`,
        { cause: error },
      );
    } finally {
      client.release();
    }
  }

  #checkVersion(value: string | undefined): void {
    if (value !== undefined && !(Number(value) <= SCHEMA_VERSION)) {
      throw new StoreError(
        `${this.describe}: schema "${this.schema}" has loopgate schema version ${value}, newer than this loopgate understands (${SCHEMA_VERSION})`,
      );
    }
  }

  /** A pooled connection, or a StoreError naming the target and why it failed. */
  async #connect(what?: string): Promise<pg.PoolClient> {
    try {
      return await this.#pool.connect();
    } catch (error) {
      if (this.#closed) throw new StoreError(`${this.describe}: the store is closed`);
      const text = this.#poolBusy(error) ?? describeConnectError(error, this.#connectTimeoutMs, this.#secret);
      throw new StoreError(`${this.describe}: ${what ? `${what}: ` : ''}${text}`, { cause: error });
    }
  }

  #checkOpen(): void {
    if (this.#closed) throw new StoreError(`${this.describe}: the store is closed`);
  }

  #checkId(conversationId: string): void {
    checkConversationId(this.describe, conversationId);
    // PostgreSQL text cannot hold NUL, and a lone surrogate would not read back the same.
    if (conversationId.includes('\u0000') || !conversationId.isWellFormed()) {
      throw new StoreError(
        `${this.describe}: conversation id ${JSON.stringify(conversationId.slice(0, 40))} contains a NUL character or a lone surrogate, which PostgreSQL text cannot store`,
      );
    }
  }

  /** The batch as column arrays for the INSERT ... unnest. */
  #serialize(conversationId: string, records: readonly EventRecord[]): unknown[][] {
    const seqs: string[] = [];
    const types: string[] = [];
    const versions: number[] = [];
    const ats: number[] = [];
    const ignorables: boolean[] = [];
    const sources: (string | null)[] = [];
    const payloads: string[] = [];
    records.forEach((r, i) => {
      const where = `${this.describe}: conversation "${conversationId}": batch record ${i} (seq ${r.seq})`;
      let payload: string;
      try {
        // Plain JSON data only: JSON.stringify would silently turn NaN into null and drop
        // undefined fields, so what is read back would differ from what was appended.
        // JSON.stringify escapes control characters, so the text never holds a NUL.
        payload = JSON.stringify(toFrozenPlainData(r.payload, 'payload'));
      } catch (error) {
        throw new StoreError(`${where}: ${(error as Error).message}`, { cause: error });
      }
      if (r.type.includes('\u0000') || !r.type.isWellFormed()) throw new StoreError(`${where}: type contains a NUL character or a lone surrogate`);
      seqs.push(String(r.seq));
      types.push(r.type);
      versions.push(r.v);
      ats.push(r.at);
      ignorables.push(r.ignorable);
      sources.push(r.sources === undefined ? null : JSON.stringify(r.sources));
      payloads.push(payload);
    });
    return [seqs, types, versions, ats, ignorables, sources, payloads];
  }

  /** A stored row back to a record; anything that does not read back cleanly is corruption (nothing is deleted). */
  #parse(conversationId: string, expectedSeq: number, row: StoredRow): EventRecord {
    const [seqText, type, v, at, ignorable, sources, payloadText] = row;
    const corrupt = (reason: string): StoreCorruptionError => new StoreCorruptionError(this.describe, conversationId, expectedSeq, reason);
    const seq = Number(seqText);
    if (seq !== expectedSeq) throw corrupt(`the record is missing (the next stored seq is ${String(seqText)}); seqs must be gapless`);
    if (typeof type !== 'string' || type.length === 0) throw corrupt(`type is ${JSON.stringify(type)}`);
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw corrupt(`version is ${String(v)}`);
    if (typeof at !== 'number' || !Number.isFinite(at)) throw corrupt(`time is ${String(at)}`);
    if (typeof ignorable !== 'boolean') throw corrupt(`ignorable flag is ${String(ignorable)}`);
    if (typeof payloadText !== 'string') throw corrupt(`payload is not text (${payloadText === null ? 'null' : typeof payloadText})`);
    let payload: unknown;
    try {
      payload = JSON.parse(payloadText);
    } catch (error) {
      throw corrupt(`payload is not valid JSON (a torn or overwritten record?): ${(error as Error).message}`);
    }
    const record = { seq, type, v, at, payload, ignorable };
    if (sources === null) return record;
    let parsed: unknown;
    try {
      parsed = typeof sources === 'string' ? JSON.parse(sources) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!Array.isArray(parsed) || !parsed.every((s) => Number.isSafeInteger(s) && s >= 0 && s < expectedSeq)) {
      throw corrupt(`sources are not a list of earlier seqs: ${String(sources).slice(0, 80)}`);
    }
    return { ...record, sources: parsed as number[] };
  }

  /** A driver error as text: connection failures described, the password never shown. */
  /**
   * pg-pool gives up waiting for a free connection after the connect timeout too,
   * with a message that would read as an unreachable server: say what it is.
   */
  #poolBusy(error: unknown): string | undefined {
    if (!/timeout exceeded when trying to connect/.test(String((error as Error)?.message)) || this.#pool.totalCount < this.#poolSize) return undefined;
    return `no free connection within ${this.#connectTimeoutMs} ms: all ${this.#poolSize} are busy (raise poolSize?)`;
  }

  #errorText(error: unknown): string {
    const busy = this.#poolBusy(error);
    if (busy !== undefined) return busy;
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return describeConnectError(error, this.#connectTimeoutMs, this.#secret);
    if (/timeout/i.test(String((error as Error).message))) return describeConnectError(error, this.#connectTimeoutMs, this.#secret);
    return this.#clean(error);
  }

  #clean(error: unknown): string {
    const text = String((error as Error)?.message ?? error);
    return this.#secret ? scrub(text, this.#secret) : text;
  }
}

/** libpq's `connect_timeout` URL parameter (seconds), when given and positive. */
function urlConnectTimeoutMs(url: string): number | undefined {
  const seconds = Number(new URL(url).searchParams.get('connect_timeout') ?? Number.NaN);
  return Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) : undefined;
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function positiveInt(describe: string, name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new StoreError(`${describe}: option ${name} must be a positive integer, got ${String(value)}`);
  return value;
}

const EVENT_COLUMNS = ['conversation', 'seq', 'prev_seq', 'type', 'v', 'at', 'ignorable', 'sources', 'payload'];

/** What the schema's `loopgate_events` lacks of loopgate's table: its columns, its primary key and the gapless rule's foreign key. */
async function shapeProblems(client: Queryable, schema: string): Promise<string[]> {
  const columns = await client.query<{ name: string }>(
    `SELECT column_name AS name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'loopgate_events'`,
    [schema],
  );
  const have = new Set(columns.rows.map((r) => r.name));
  const missing = EVENT_COLUMNS.filter((c) => !have.has(c));
  if (missing.length > 0) return [`it has no column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`];
  const keys = await client.query<{ type: string; columns: string }>(
    `SELECT c.contype AS type,
            (SELECT string_agg(a.attname, ', ' ORDER BY k.i) FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, i)
               JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum) AS columns
       FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = $1 AND t.relname = 'loopgate_events' AND c.contype IN ('p', 'f')`,
    [schema],
  );
  const has = (type: string, cols: string) => keys.rows.some((r) => r.type === type && r.columns === cols);
  const problems: string[] = [];
  if (!has('p', 'conversation, seq')) problems.push('no primary key on (conversation, seq)');
  if (!has('f', 'conversation, prev_seq')) problems.push('no foreign key from (conversation, prev_seq)');
  return problems;
}
