/**
 * The conversation lock across processes: a PostgreSQL session-level advisory lock
 * on a 64-bit hash of the conversation id, held for as long as the turn runs, so
 * hosts on one or many machines that share a database run one turn at a time per
 * conversation.
 *
 * Where the lock is held:
 * - uncontended (the usual case: one user, one conversation), it is taken with
 *   `pg_try_advisory_lock` on one connection the process shares for all such
 *   locks, so a thousand quiet conversations cost one connection, not a thousand;
 * - contended, the caller waits in PostgreSQL's own queue with `pg_advisory_lock`
 *   on a connection of its own (from the lock pool), which then holds the lock.
 *
 * Inside one process, callers queue on the in-process FIFO lock first, so at most
 * one per conversation per process talks to PostgreSQL. When a holder releases and
 * the next holder is in the same process, the advisory lock is handed over without
 * unlocking — unless another session waits for it in PostgreSQL (`pg_locks`): then
 * it is unlocked, and the local waiter queues again behind the other process.
 *
 * Ordering across processes is PostgreSQL's: waiters for one advisory lock in one
 * mode are granted in arrival order, and a release grants the lock to the first
 * waiter directly, so a newcomer's `pg_try_advisory_lock` cannot jump the queue.
 * That is best effort, not a promise: a session that gives up or dies leaves the
 * queue, and the hand-over above favours the current process until another process
 * is seen waiting.
 *
 * A new holder also waits for any append transaction of the conversation still in
 * flight (a killed host's last COMMIT may land after its lock is gone; see `#barrier`).
 *
 * If a connection breaks while it holds locks, PostgreSQL has already let go of
 * them, and another host may start a turn. The holder is told at once (`Release.lost`
 * aborts as the driver sees the connection fail or end): the host stops its turn
 * and writes nothing more of the conversation (outside probe 51, HIGH-1). The
 * store's gapless-seq check is the fence for what raced that news: the first
 * host's next append fails with `StoreConflictError` rather than interleaving two
 * turns' events.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { ConversationLocks } from './conversation-lock.ts';
import { StoreError, StoreLockAbortedError, type Release } from './event-store.ts';
import { type Queryable, SerialQueries } from './serial-queries.ts';

/** A 64-bit advisory-lock key for the parts (signed, as PostgreSQL's bigint). */
export function advisoryKey(...parts: readonly string[]): bigint {
  return createHash('sha256')
    .update(['loopgate', ...parts].join('\0'))
    .digest()
    .readBigInt64BE(0);
}

/** How a bigint advisory key shows in `pg_locks`: classid = high 32 bits, objid = low 32 bits, objsubid = 1. */
export function pgLocksIds(key: bigint): { classid: number; objid: number } {
  const u = BigInt.asUintN(64, key);
  return { classid: Number(u >> 32n), objid: Number(u & 0xffff_ffffn) };
}

const OTHERS_WAITING_SQL = `
  SELECT EXISTS (
    SELECT 1 FROM pg_locks
     WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1
       AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND classid = $1::oid AND objid = $2::oid
  ) AS waiting`;

async function othersWaiting(client: Queryable, key: bigint): Promise<boolean> {
  const { classid, objid } = pgLocksIds(key);
  const result = await client.query<{ waiting: boolean }>(OTHERS_WAITING_SQL, [classid, objid]);
  return result.rows[0]?.waiting === true;
}

/** A held advisory lock, wherever it is held. */
interface HeldLock {
  /** The connection failed: the server has dropped the lock along with the session. */
  readonly broken: boolean;
  /** Aborts when the connection fails while the lock is held (`broken`): what the holder's `Release.lost` says. */
  readonly lost: AbortSignal;
  /** Lets go of the lock (idempotent; never throws). */
  unlock(): Promise<void>;
  /** Whether another session waits for this lock in PostgreSQL. */
  othersWaiting(): Promise<boolean>;
  /** Forgets the lock without a round trip (the store is closing and ends its connections). */
  drop(): void;
}

/** The connection this process shares for uncontended locks; many conversations use it at once, so its queries go one at a time. */
class SharedConnection {
  readonly client: pg.Client;
  readonly queries: SerialQueries;
  broken = false;
  readonly #lost = new AbortController();

  constructor(client: pg.Client) {
    this.client = client;
    this.queries = new SerialQueries(client);
    // Without a listener a dropped connection's 'error' would crash the process.
    client.on('error', () => this.end());
    client.on('end', () => {
      this.broken = true;
      this.#tellLost();
    });
  }

  /** Aborts once the session ends: every lock held on it is gone (the server released them with it). */
  get lost(): AbortSignal {
    return this.#lost.signal;
  }

  /** Ends the session: the server releases every lock held on it. */
  end(): void {
    if (this.broken) return;
    this.broken = true;
    this.#tellLost();
    this.client.end().catch(() => undefined);
  }

  #tellLost(): void {
    if (!this.#lost.signal.aborted) this.#lost.abort(new Error('the conversation lock connection ended: PostgreSQL let go of its locks'));
  }
}

class SharedLock implements HeldLock {
  readonly #connection: SharedConnection;
  readonly #key: bigint;
  #done = false;

  constructor(connection: SharedConnection, key: bigint) {
    this.#connection = connection;
    this.#key = key;
  }

  get broken(): boolean {
    return this.#connection.broken;
  }

  get lost(): AbortSignal {
    return this.#connection.lost;
  }

  async unlock(): Promise<void> {
    if (this.#done) return;
    this.#done = true;
    if (this.#connection.broken) return;
    try {
      await this.#connection.queries.query('SELECT pg_advisory_unlock($1::bigint)', [this.#key.toString()]);
    } catch {
      // The session can no longer be trusted to have let go: ending it guarantees it.
      this.#connection.end();
    }
  }

  othersWaiting(): Promise<boolean> {
    return othersWaiting(this.#connection.queries, this.#key);
  }

  drop(): void {
    this.#done = true;
  }
}

/** A lock waited for and held on a pooled connection of its own. */
class DedicatedLock implements HeldLock {
  readonly client: pg.PoolClient;
  /** The client's queries, one at a time (an unlock never overlaps a check for waiters). */
  readonly queries: SerialQueries;
  readonly key: bigint;
  broken = false;
  #done = false;
  readonly #lost = new AbortController();
  /** The connection failed or ended while the lock was held: the server let go of it. */
  readonly #onError = (): void => {
    this.broken = true;
    if (!this.#done && !this.#lost.signal.aborted) this.#lost.abort(new Error('the conversation lock connection failed: PostgreSQL let go of the lock'));
  };

  constructor(client: pg.PoolClient, key: bigint) {
    this.client = client;
    this.queries = new SerialQueries(client);
    this.key = key;
    client.on('error', this.#onError);
    client.on('end', this.#onError);
  }

  get lost(): AbortSignal {
    return this.#lost.signal;
  }

  /** Ends the connection: the server releases the lock (and drops a waiting statement). */
  drop(): void {
    if (this.#done) return;
    this.#done = true;
    this.client.off('error', this.#onError);
    this.client.off('end', this.#onError);
    this.client.release(true);
  }

  async unlock(): Promise<void> {
    if (this.#done) return;
    if (this.broken) return this.drop();
    try {
      const result = await this.queries.query<{ ok: boolean }>('SELECT pg_advisory_unlock($1::bigint) AS ok', [this.key.toString()]);
      // false: the session did not hold it; it cannot be trusted any more.
      if (result.rows[0]?.ok !== true) return this.drop();
    } catch {
      return this.drop();
    }
    if (this.#done) return;
    this.#done = true;
    this.client.off('error', this.#onError);
    this.client.off('end', this.#onError);
    this.client.release();
  }

  othersWaiting(): Promise<boolean> {
    return othersWaiting(this.queries, this.key);
  }
}

interface Entry {
  /** Local callers that asked for the lock and were not granted it yet. */
  waiting: number;
  /** The advisory lock, held while a caller in this process holds the conversation lock. */
  held: HeldLock | undefined;
}

export interface AdvisoryLocksOptions {
  /** For messages: the store's (masked) description. */
  readonly describe: string;
  /** A new, unconnected client (for the shared connection). */
  readonly newClient: () => pg.Client;
  /** Connections for contended locks (each waits for, then holds, one lock). */
  readonly lockPool: pg.Pool;
  /** Key of a conversation's lock. */
  readonly keyOf: (conversationId: string) => bigint;
  /** Key of the lock each append transaction holds until it commits (see `#barrier`). */
  readonly appendKeyOf: (conversationId: string) => bigint;
  /** Cancels the statement a backend is running (`pg_cancel_backend`, on another connection). */
  readonly cancelBackend: (pid: number) => Promise<void>;
  /** A connection failure in words, password masked. */
  readonly describeError: (error: unknown) => string;
}

export class AdvisoryLocks {
  readonly #o: AdvisoryLocksOptions;
  readonly #local = new ConversationLocks();
  readonly #entries = new Map<string, Entry>();
  /** Waiting lock statements, by their cancel function (for close). */
  readonly #pending = new Set<() => Promise<void>>();
  #shared: Promise<SharedConnection> | undefined;
  #closedReason: string | undefined;

  constructor(options: AdvisoryLocksOptions) {
    this.#o = options;
  }

  async lock(conversationId: string, signal?: AbortSignal): Promise<Release> {
    let entry = this.#entries.get(conversationId);
    if (entry === undefined) {
      entry = { waiting: 0, held: undefined };
      this.#entries.set(conversationId, entry);
    }
    entry.waiting++;
    let releaseLocal: Release;
    try {
      releaseLocal = await this.#local.acquire(conversationId, signal);
    } catch (error) {
      entry.waiting--;
      this.#forget(conversationId, entry);
      throw error;
    }
    entry.waiting--;
    try {
      if (entry.held?.broken) {
        entry.held.drop();
        entry.held = undefined;
      }
      entry.held ??= await this.#acquire(conversationId, signal);
    } catch (error) {
      await releaseLocal();
      this.#forget(conversationId, entry);
      throw error;
    }
    return this.#releaser(conversationId, entry, releaseLocal);
  }

  /** Fails waiters, cancels waiting lock statements and ends the connections holding locks. */
  async close(reason: string): Promise<void> {
    this.#closedReason = reason;
    this.#local.close(reason);
    await Promise.allSettled([...this.#pending].map((cancel) => cancel()));
    for (const entry of this.#entries.values()) {
      entry.held?.drop();
      entry.held = undefined;
    }
    const shared = await this.#shared?.catch(() => undefined);
    shared?.end();
  }

  #releaser(conversationId: string, entry: Entry, releaseLocal: Release): Release {
    let released = false;
    // The lock as held now: a broken one is replaced at the next grant, whose holder is told of that one's loss.
    const lost = entry.held?.lost;
    const release = async () => {
      // Idempotent: a second call must not release the next holder's lock.
      if (released) return;
      released = true;
      const held = entry.held;
      try {
        if (held !== undefined) {
          const handOver = entry.waiting > 0 && !held.broken && this.#closedReason === undefined && !(await held.othersWaiting().catch(() => true));
          if (!handOver) {
            entry.held = undefined;
            await held.unlock();
          }
        }
      } finally {
        await releaseLocal();
        // A local waiter may have given up meanwhile: if nobody took over, let go in PostgreSQL too.
        if (!this.#local.isHeld(conversationId) && entry.held !== undefined) {
          const idle = entry.held;
          entry.held = undefined;
          await idle.unlock();
        }
        this.#forget(conversationId, entry);
      }
    };
    return lost ? Object.assign(release, { lost }) : release;
  }

  /** Takes the advisory lock: at once on the shared connection if free, else by waiting on a connection of its own. */
  async #acquire(conversationId: string, signal: AbortSignal | undefined): Promise<HeldLock> {
    const key = this.#o.keyOf(conversationId);
    this.#checkCanWait(conversationId, signal);
    const shared = await this.#sharedConnection(conversationId);
    let free: boolean;
    try {
      free = (await shared.queries.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [key.toString()])).rows[0]?.ok === true;
    } catch (error) {
      shared.end();
      throw this.#lockError(conversationId, error);
    }
    if (free) {
      const held = new SharedLock(shared, key);
      try {
        await this.#barrier(shared.queries, conversationId);
      } catch (error) {
        shared.end();
        throw this.#lockError(conversationId, error);
      }
      if (this.#closedReason !== undefined || signal?.aborted) {
        await held.unlock();
        this.#checkCanWait(conversationId, signal);
      }
      return held;
    }
    return this.#wait(conversationId, key, signal);
  }

  /** Waits in PostgreSQL's queue for the lock, on a connection that then holds it. */
  async #wait(conversationId: string, key: bigint, signal: AbortSignal | undefined): Promise<HeldLock> {
    let client: pg.PoolClient;
    try {
      client = await this.#o.lockPool.connect();
    } catch (error) {
      this.#checkCanWait(conversationId, signal);
      const { totalCount, options } = this.#o.lockPool;
      if (totalCount >= (options.max ?? Number.POSITIVE_INFINITY)) {
        throw new StoreError(
          `${this.#o.describe}: conversation "${conversationId}": could not take the conversation lock: all ${totalCount} lock connections are waiting for other conversations (raise maxLockConnections?)`,
          { cause: error },
        );
      }
      throw this.#lockError(conversationId, error);
    }
    const held = new DedicatedLock(client, key);
    if (this.#closedReason !== undefined || signal?.aborted) {
      held.drop();
      this.#checkCanWait(conversationId, signal);
    }

    let cancelling: Promise<void> | undefined;
    const cancel = (): Promise<void> => {
      cancelling ??= this.#cancel(held);
      return cancelling;
    };
    const onAbort = (): void => void cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.#pending.add(cancel);
    try {
      await held.queries.query('SELECT pg_advisory_lock($1::bigint)', [key.toString()]);
      await this.#barrier(held.queries, conversationId);
    } catch (error) {
      held.drop();
      this.#checkCanWait(conversationId, signal);
      throw this.#lockError(conversationId, error);
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.#pending.delete(cancel);
    }
    // The grant raced an abort or close: ending the session frees the lock at once
    // (and makes a cancel that arrives late harmless).
    if (cancelling !== undefined || signal?.aborted || this.#closedReason !== undefined) {
      held.drop();
      this.#checkCanWait(conversationId, signal);
      throw new StoreLockAbortedError(conversationId);
    }
    return held;
  }

  /**
   * Waits until no append transaction for the conversation is in flight. A host
   * killed while its COMMIT was on the wire loses its lock connection at once, but
   * PostgreSQL may finish that COMMIT (on the other connection) a moment later; the
   * next holder must not read the conversation before it lands, or it would write
   * at a seq that is about to be taken. Append transactions hold the append lock
   * until they end, so taking (and at once dropping) it is the barrier.
   */
  async #barrier(client: Queryable, conversationId: string): Promise<void> {
    await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [this.#o.appendKeyOf(conversationId).toString()]);
  }

  /** The shared connection, (re)connected on demand. */
  async #sharedConnection(conversationId: string): Promise<SharedConnection> {
    for (let attempt = 0; ; attempt++) {
      if (this.#shared === undefined) {
        const connecting = (async () => {
          const client = this.#o.newClient();
          const connection = new SharedConnection(client);
          await client.connect();
          return connection;
        })();
        this.#shared = connecting;
        // A failed attempt is forgotten, so the next caller tries again.
        connecting.catch(() => {
          if (this.#shared === connecting) this.#shared = undefined;
        });
      }
      const pending = this.#shared;
      let connection: SharedConnection;
      try {
        connection = await pending;
      } catch (error) {
        this.#checkCanWait(conversationId, undefined);
        throw this.#lockError(conversationId, error);
      }
      if (this.#closedReason !== undefined) {
        connection.end();
        this.#checkCanWait(conversationId, undefined);
      }
      if (!connection.broken) return connection;
      if (this.#shared === pending) this.#shared = undefined;
      if (attempt > 0)
        throw new StoreError(
          `${this.#o.describe}: conversation "${conversationId}": could not take the conversation lock: the connection broke as soon as it opened`,
        );
    }
  }

  async #cancel(held: DedicatedLock): Promise<void> {
    const pid = (held.client as unknown as { processID?: unknown }).processID;
    if (typeof pid === 'number') {
      try {
        await this.#o.cancelBackend(pid);
        return;
      } catch {
        // Fall through: ending the connection gets the statement out of the way too.
      }
    }
    held.drop();
  }

  /** Throws if the store closed or the caller gave up. */
  #checkCanWait(conversationId: string, signal: AbortSignal | undefined): void {
    if (this.#closedReason !== undefined) throw new StoreError(this.#closedReason);
    if (signal?.aborted) throw new StoreLockAbortedError(conversationId);
  }

  #lockError(conversationId: string, error: unknown): StoreError {
    return new StoreError(`${this.#o.describe}: conversation "${conversationId}": could not take the conversation lock: ${this.#o.describeError(error)}`, {
      cause: error,
    });
  }

  #forget(conversationId: string, entry: Entry): void {
    if (entry.waiting === 0 && entry.held === undefined && !this.#local.isHeld(conversationId) && this.#entries.get(conversationId) === entry) {
      this.#entries.delete(conversationId);
    }
  }
}
