/**
 * The cross-process guard for one SQLite file: a single-row table names the
 * process whose host writes the file (a random token, its pid and host name, when
 * it claimed, its last heartbeat). Without it, two host processes on one file
 * would each recover the other's live turns as crashed (closing them as
 * `interrupted` and re-queueing their messages).
 *
 * - Claiming runs in a write transaction: it succeeds when the row is absent,
 *   is this store object's own, or is stale — its heartbeat older than the time to
 *   live, or its pid gone on this machine (a killed process is taken over at once,
 *   also while it waits to be reaped: a zombie on Linux),
 *   or its pid this process's own but claimed before this process started (a
 *   container restarted after a crash runs as pid 1 again: taken over at once).
 *   Otherwise it refuses with `StoreInUseError` naming the owner, or retries until
 *   `waitMs` has passed.
 * - The owner renews its heartbeat on a timer (unref'd), and every append checks,
 *   inside its own transaction, that the row is still its own (fencing: a process
 *   that stalled past the time to live and was taken over cannot write again).
 * - `close` deletes the row; a process that dies leaves it to be taken over.
 * - The file itself is fenced too: removed or replaced under the host (a deploy
 *   script cleaning the data directory, a volume remounted), its writes would
 *   land in an unlinked file — answered stored, gone at the next restart — and a
 *   second host would claim a new file at the path. Every append and every
 *   heartbeat checks that the path still names the file the store opened (its
 *   device and inode); if not, the claim is lost: nothing more is written.
 *
 * The table is created on the first claim, so a store opened only to read (the
 * CLI's replay) never writes to the file.
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { StoreError, StoreInUseError, type WriterClaimOptions } from './event-store.ts';

export interface WriterClaimTiming {
  /** A claim whose heartbeat is older than this is stale (ms). Default 15,000. */
  readonly ttlMs?: number;
  /** How often the owner renews its heartbeat (ms). Default a third of the time to live. */
  readonly heartbeatMs?: number;
}

interface Owner {
  readonly token: string;
  readonly pid: number;
  readonly host: string;
  readonly claimedAt: number;
  readonly heartbeatAt: number;
}

const RETRY_MS = 100;

/** When this process started (ms since the epoch): a claim made earlier with this pid was another process's. */
const PROCESS_STARTED_AT = performance.timeOrigin;

export class SqliteWriterClaim {
  readonly #db: DatabaseSync;
  readonly #describe: string;
  readonly #ttlMs: number;
  readonly #heartbeatMs: number;
  readonly #token = randomUUID();
  #held = false;
  #lost: string | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #owner: StatementSync | undefined;
  /** The file the store opened (undefined in memory): its path, and the device and inode it named then. */
  readonly #file: { readonly path: string; readonly id: string } | undefined;

  constructor(db: DatabaseSync, describe: string, timing: WriterClaimTiming = {}, path?: string) {
    this.#db = db;
    this.#describe = describe;
    // Resolved now: SQLite opened the path against the directory this process was in.
    const file = path === undefined ? undefined : resolve(path);
    const id = file === undefined ? undefined : fileId(file);
    this.#file = file !== undefined && id !== undefined ? { path: file, id } : undefined;
    this.#ttlMs = timing.ttlMs ?? 15_000;
    this.#heartbeatMs = timing.heartbeatMs ?? Math.max(1, Math.floor(this.#ttlMs / 3));
    if (!(this.#ttlMs > 0) || !(this.#heartbeatMs > 0) || this.#heartbeatMs >= this.#ttlMs) {
      throw new StoreError(`${describe}: writer claim timing: heartbeatMs (${this.#heartbeatMs}) must be positive and below ttlMs (${this.#ttlMs})`);
    }
  }

  get held(): boolean {
    return this.#held;
  }

  async claim(options: WriterClaimOptions = {}): Promise<void> {
    if (this.#held && this.#lost === undefined) return;
    const waitMs = options.waitMs ?? 0;
    const deadline = Date.now() + waitMs;
    for (;;) {
      const owner = this.#tryClaim();
      if (owner === undefined) return;
      const remaining = deadline - Date.now();
      if (remaining <= 0 || options.signal?.aborted) throw new StoreInUseError(this.#inUse(owner, waitMs));
      await pause(Math.min(RETRY_MS, remaining), options.signal);
    }
  }

  /** Inside an append's write transaction: throws unless this object still holds the claim (when it claimed at all). */
  checkHeld(): void {
    if (!this.#held) return;
    if (this.#lost === undefined) this.#checkFile();
    if (this.#lost === undefined) {
      const row = this.#owner!.get() as Record<string, unknown> | undefined;
      if (row?.token !== this.#token) this.#lose(row ? toOwner(row) : undefined);
    }
    if (this.#lost !== undefined) throw new StoreInUseError(this.#lost);
  }

  /** Gives the claim up (on close). */
  release(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    if (!this.#held) return;
    this.#held = false;
    try {
      this.#db.prepare('DELETE FROM writer_claim WHERE id = 1 AND token = ?').run(this.#token);
    } catch {
      // Closing anyway: a row left behind is taken over once its pid is gone.
    }
  }

  /** Claims in one write transaction; returns the live owner that prevented it, or undefined once claimed. */
  #tryClaim(): Owner | undefined {
    const db = this.#db;
    try {
      db.exec(`CREATE TABLE IF NOT EXISTS writer_claim (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        token TEXT NOT NULL,
        pid INTEGER NOT NULL,
        host TEXT NOT NULL,
        claimed_at REAL NOT NULL,
        heartbeat_at REAL NOT NULL
      )`);
      this.#owner ??= db.prepare('SELECT token, pid, host, claimed_at, heartbeat_at FROM writer_claim WHERE id = 1');
      db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      throw new StoreError(`${this.#describe}: cannot claim the store for this process: ${(error as Error).message}`, { cause: error });
    }
    try {
      const row = this.#owner.get() as Record<string, unknown> | undefined;
      const owner = row ? toOwner(row) : undefined;
      if (owner && owner.token !== this.#token && !this.#stale(owner)) {
        db.exec('ROLLBACK');
        return owner;
      }
      const now = Date.now();
      db.prepare('INSERT OR REPLACE INTO writer_claim (id, token, pid, host, claimed_at, heartbeat_at) VALUES (1, ?, ?, ?, ?, ?)').run(
        this.#token,
        process.pid,
        hostname(),
        now,
        now,
      );
      db.exec('COMMIT');
    } catch (error) {
      try {
        db.exec('ROLLBACK');
      } catch {
        // Already rolled back.
      }
      throw new StoreError(`${this.#describe}: cannot claim the store for this process: ${(error as Error).message}`, { cause: error });
    }
    this.#held = true;
    this.#lost = undefined;
    this.#startHeartbeat();
    return undefined;
  }

  #stale(owner: Owner): boolean {
    if (Date.now() - owner.heartbeatAt > this.#ttlMs) return true;
    if (owner.host !== hostname()) return false;
    // This pid, but claimed before this process started: an earlier process that had the pid (a container's pid 1
    // before a restart) and is gone — this process cannot have claimed before it existed.
    if (owner.pid === process.pid) return owner.claimedAt < PROCESS_STARTED_AT;
    return !pidAlive(owner.pid);
  }

  #startHeartbeat(): void {
    if (this.#timer) clearInterval(this.#timer);
    const renew = this.#db.prepare('UPDATE writer_claim SET heartbeat_at = ? WHERE id = 1 AND token = ?');
    this.#timer = setInterval(() => {
      try {
        if (this.#checkFile()) return;
        if (Number(renew.run(Date.now(), this.#token).changes) === 0) {
          const row = this.#owner!.get() as Record<string, unknown> | undefined;
          this.#lose(row ? toOwner(row) : undefined);
        }
      } catch {
        // Busy or closing: the next beat tries again; appends check the row themselves.
      }
    }, this.#heartbeatMs);
    this.#timer.unref?.();
  }

  #lose(owner: Owner | undefined): void {
    this.#stop(
      `${this.#describe}: this process no longer holds the store's writer claim (${
        owner ? `taken over by ${describeOwner(owner)}` : 'it was removed'
      }, after its heartbeat lapsed for more than ${this.#ttlMs} ms); nothing more is written. Claim it again (a new host) once that process has stopped`,
    );
  }

  /** Loses the claim when the path no longer names the file the store opened; says whether it did. */
  #checkFile(): boolean {
    if (this.#file === undefined) return false;
    const now = fileId(this.#file.path);
    if (now === this.#file.id) return false;
    this.#stop(
      `${this.#describe}: the store's file ${this.#file.path} was ${now === undefined ? 'removed' : 'replaced by another file'} while this process wrote it; nothing more is written, and this host does not resume: start a new host on the file at that path (restored, or a new one)`,
    );
    return true;
  }

  #stop(why: string): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#lost = why;
  }

  #inUse(owner: Owner, waitMs: number): string {
    return `${this.#describe} is in use by another loopgate host: ${describeOwner(owner)}${waitMs > 0 ? `; still held after waiting ${waitMs} ms` : ''}. Two hosts on one SQLite file would recover each other's live turns as crashed: stop that host, give this one another file, or share conversations between hosts through a PostgreSQL store`;
  }
}

function toOwner(row: Record<string, unknown>): Owner {
  return {
    token: String(row.token),
    pid: Number(row.pid),
    host: String(row.host),
    claimedAt: Number(row.claimed_at),
    heartbeatAt: Number(row.heartbeat_at),
  };
}

/** The device and inode a path names now, or undefined when it names nothing. */
function fileId(path: string): string | undefined {
  try {
    const stat = statSync(path, { bigint: true });
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return undefined;
  }
}

function describeOwner(owner: Owner): string {
  const ago = Math.max(0, Math.round((Date.now() - owner.heartbeatAt) / 1000));
  return `process ${owner.pid} on ${owner.host} (claimed ${new Date(owner.claimedAt).toISOString()}, last heartbeat ${ago} s ago)`;
}

function pidAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' && !zombie(pid); // alive, owned by another user
  }
  return !zombie(pid);
}

/**
 * A killed process answers signals until its parent reaps it (a zombie): seconds, or for
 * good under a pid 1 that never reaps. On Linux its state says so; elsewhere it counts as alive.
 */
function zombie(pid: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'Z' || state === 'X';
  } catch {
    return false;
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
