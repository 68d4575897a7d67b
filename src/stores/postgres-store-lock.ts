/**
 * The conversation lock across processes: a PostgreSQL session-level advisory lock
 * (`pg_advisory_lock` on a 64-bit hash of the conversation id), held on a
 * connection of its own for as long as the turn runs, so hosts on one or many
 * machines that share a database run one turn at a time per conversation.
 *
 * Two levels:
 * - inside one process, callers queue on the in-process FIFO lock first, so at most
 *   one connection per conversation per process waits in PostgreSQL;
 * - when a holder releases and the next holder is in the same process, the
 *   advisory lock is handed over without unlocking, unless another session is
 *   waiting for it in PostgreSQL (checked in `pg_locks`): then it is unlocked and
 *   the local waiter queues again behind the other process.
 *
 * Ordering across processes is PostgreSQL's: waiters for a lock are queued and, for
 * this one exclusive lock mode, granted in arrival order. That is best effort, not
 * a promise: a session that dies while waiting leaves the queue, and the hand-over
 * above favours the current process until another process is seen waiting.
 *
 * If a lock's connection breaks while held, PostgreSQL has already let go of the
 * lock, and another host may start a turn. The store's gapless-seq check is the
 * fence then: the first host's next append fails with `StoreConflictError` rather
 * than interleaving two turns' events.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { ConversationLocks } from './conversation-lock.ts';
import { StoreError, StoreLockAbortedError, type Release } from './event-store.ts';

/** A 64-bit advisory-lock key for the parts (signed, as PostgreSQL's bigint). */
export function advisoryKey(...parts: readonly string[]): bigint {
  return createHash('sha256').update(['loopgate', ...parts].join('\0')).digest().readBigInt64BE(0);
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

/** One checked-out connection that holds (or is taking) one advisory lock. */
class LockSession {
  readonly client: pg.PoolClient;
  readonly key: bigint;
  /** The connection failed: the server has dropped the lock along with the session. */
  broken = false;
  #done = false;
  readonly #onError = (): void => {
    this.broken = true;
  };

  constructor(client: pg.PoolClient, key: bigint) {
    this.client = client;
    this.key = key;
    client.on('error', this.#onError);
  }

  /** Ends the connection: the server releases every lock the session holds. */
  destroy(): void {
    if (this.#done) return;
    this.#done = true;
    this.client.off('error', this.#onError);
    this.client.release(true);
  }

  /** Unlocks and returns the connection to the pool; ends it instead if anything is off. */
  async unlock(): Promise<void> {
    if (this.#done) return;
    if (this.broken) return this.destroy();
    try {
      const result = await this.client.query<{ ok: boolean }>('SELECT pg_advisory_unlock($1::bigint) AS ok', [this.key.toString()]);
      // false: the session did not hold it (it cannot be trusted any more).
      if (result.rows[0]?.ok !== true) return this.destroy();
    } catch {
      return this.destroy();
    }
    if (this.#done) return;
    this.#done = true;
    this.client.off('error', this.#onError);
    this.client.release();
  }

  /** Whether another session waits for this lock in PostgreSQL. */
  async othersWaiting(): Promise<boolean> {
    const { classid, objid } = pgLocksIds(this.key);
    const result = await this.client.query<{ waiting: boolean }>(OTHERS_WAITING_SQL, [classid, objid]);
    return result.rows[0]?.waiting === true;
  }
}

interface Entry {
  /** Local callers that asked for the lock and were not granted it yet. */
  waiting: number;
  /** The connection holding the advisory lock while a caller in this process holds the lock. */
  session: LockSession | undefined;
}

export interface AdvisoryLocksOptions {
  /** For messages: the store's (masked) description. */
  readonly describe: string;
  /** Connections that hold or wait for locks. */
  readonly lockPool: pg.Pool;
  /** Key of a conversation's lock. */
  readonly keyOf: (conversationId: string) => bigint;
  /** Cancels the statement a backend is running (`pg_cancel_backend`, on another connection). */
  readonly cancelBackend: (pid: number) => Promise<void>;
}

export class AdvisoryLocks {
  readonly #o: AdvisoryLocksOptions;
  readonly #local = new ConversationLocks();
  readonly #entries = new Map<string, Entry>();
  /** Advisory-lock statements in flight, by their cancel function (for close). */
  readonly #pending = new Set<() => Promise<void>>();
  #closedReason: string | undefined;

  constructor(options: AdvisoryLocksOptions) {
    this.#o = options;
  }

  async lock(conversationId: string, signal?: AbortSignal): Promise<Release> {
    let entry = this.#entries.get(conversationId);
    if (entry === undefined) {
      entry = { waiting: 0, session: undefined };
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
      if (entry.session?.broken) {
        entry.session.destroy();
        entry.session = undefined;
      }
      entry.session ??= await this.#acquire(conversationId, signal);
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
      entry.session?.destroy();
      entry.session = undefined;
    }
  }

  #releaser(conversationId: string, entry: Entry, releaseLocal: Release): Release {
    let released = false;
    return async () => {
      // Idempotent: a second call must not release the next holder's lock.
      if (released) return;
      released = true;
      const session = entry.session;
      try {
        if (session !== undefined) {
          const handOver = entry.waiting > 0 && !session.broken && this.#closedReason === undefined && !(await session.othersWaiting().catch(() => true));
          if (!handOver) {
            entry.session = undefined;
            await session.unlock();
          }
        }
      } finally {
        await releaseLocal();
        // A local waiter may have given up meanwhile: if nobody took over, let go in PostgreSQL too.
        if (!this.#local.isHeld(conversationId) && entry.session !== undefined) {
          const idle = entry.session;
          entry.session = undefined;
          await idle.unlock();
        }
        this.#forget(conversationId, entry);
      }
    };
  }

  /** Takes the advisory lock on a connection of its own; waits as long as another session holds it. */
  async #acquire(conversationId: string, signal: AbortSignal | undefined): Promise<LockSession> {
    const { describe } = this.#o;
    const closed = (): StoreError => new StoreError(this.#closedReason ?? `${describe}: the store is closed`);
    if (this.#closedReason !== undefined) throw closed();
    if (signal?.aborted) throw new StoreLockAbortedError(conversationId);
    let client: pg.PoolClient;
    try {
      client = await this.#o.lockPool.connect();
    } catch (error) {
      if (this.#closedReason !== undefined) throw closed();
      throw new StoreError(`${describe}: conversation "${conversationId}": could not take the conversation lock: no connection: ${(error as Error).message}`, { cause: error });
    }
    const session = new LockSession(client, this.#o.keyOf(conversationId));
    if (this.#closedReason !== undefined || signal?.aborted) {
      session.destroy();
      throw this.#closedReason !== undefined ? closed() : new StoreLockAbortedError(conversationId);
    }

    let cancelling: Promise<void> | undefined;
    const cancel = (): Promise<void> => {
      cancelling ??= this.#cancel(session);
      return cancelling;
    };
    const onAbort = (): void => void cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.#pending.add(cancel);
    try {
      await client.query('SELECT pg_advisory_lock($1::bigint)', [session.key.toString()]);
    } catch (error) {
      session.destroy();
      if (signal?.aborted) throw new StoreLockAbortedError(conversationId);
      if (this.#closedReason !== undefined) throw closed();
      throw new StoreError(`${describe}: conversation "${conversationId}": could not take the conversation lock: ${(error as Error).message}`, { cause: error });
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.#pending.delete(cancel);
    }
    // The grant raced an abort or close: ending the session frees the lock at once
    // (and makes a cancel that arrives late harmless).
    if (cancelling !== undefined || signal?.aborted || this.#closedReason !== undefined) {
      session.destroy();
      throw this.#closedReason !== undefined ? closed() : new StoreLockAbortedError(conversationId);
    }
    return session;
  }

  async #cancel(session: LockSession): Promise<void> {
    const pid = (session.client as unknown as { processID?: unknown }).processID;
    if (typeof pid === 'number') {
      try {
        await this.#o.cancelBackend(pid);
        return;
      } catch {
        // Fall through: ending the connection gets the statement out of the way too.
      }
    }
    session.destroy();
  }

  #forget(conversationId: string, entry: Entry): void {
    if (entry.waiting === 0 && entry.session === undefined && !this.#local.isHeld(conversationId) && this.#entries.get(conversationId) === entry) {
      this.#entries.delete(conversationId);
    }
  }
}
