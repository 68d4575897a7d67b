/**
 * The PostgreSQL conversation lock across processes — what PostgreSQL ships for:
 * hosts on several machines taking turns on one conversation. A child process (a
 * second host, driven line by line over stdin) and this process lock one
 * conversation of one schema:
 *
 * - while the child holds the lock, this process's `lock` waits;
 * - once the child releases it — still running, its connections open — this
 *   process is granted it. (Released only by the child's exit, the lock kept a
 *   conversation from every other host for the life of the last host that served
 *   it, and passed the gate: outside probe 56, plant pg-unlock-noop.)
 * - when PostgreSQL ends the session that holds the child's lock (a DBA's
 *   `pg_terminate_backend`, a failover), the child's `Release.lost` aborts — on
 *   the connection shared by uncontended locks and on one a contended wait took
 *   of its own. (Not told, a host ran its STATEFUL call on while another host took
 *   the conversation: probe 56, plant pg-lost-silent.)
 *
 * Every other case locks within one process, where a lock keyed by something of
 * the process's own (its pid) still excludes: such a lock let two hosts run turns
 * of one conversation at once and passed the gate (outside probe 27, F3, P15).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { CheckResult } from '../report/results.ts';
import type { EventStore, Release } from '../stores/event-store.ts';
import { dropSchemas } from '../stores/postgres-schemas.ts';
import { advisoryKey, pgLocksIds } from '../stores/postgres-store-lock.ts';
import { PostgresEventStore } from '../stores/postgres-store.ts';

const CONVERSATION = 'shared-conversation';
/** Real time: how long anything the other process or the server does may take. */
const PATIENCE_MS = 15_000;
/** Real time: how often the server's lock table is read while waiting for a wait to show there. */
const POLL_MS = 20;

/** The other host: `lock`, `release` on stdin; `held`, `released`, `lost N` (the N-th lock it took) (or `error …`) on stdout; it exits when stdin ends. */
const CHILD = `
const { PostgresEventStore } = await import(process.argv[1]);
const store = await PostgresEventStore.open(process.argv[2], { schema: process.argv[3] });
const say = (word) => process.stdout.write(word + '\\n');
let release;
let n = 0; // which lock this is: a lost signal of one released before may still fire
let pending = '';
process.stdin.on('data', async (chunk) => {
  pending += chunk.toString();
  let at;
  while ((at = pending.indexOf('\\n')) >= 0) {
    const command = pending.slice(0, at).trim();
    pending = pending.slice(at + 1);
    try {
      if (command === 'lock') {
        const mine = await store.lock(${JSON.stringify(CONVERSATION)});
        const which = ++n;
        release = mine;
        mine.lost?.addEventListener('abort', () => say('lost ' + which), { once: true });
        say('held');
      } else if (command === 'release') {
        await release();
        say('released');
      }
    } catch (error) {
      say('error ' + String(error?.message ?? error).split('\\n')[0]);
    }
  }
});
// The gate gone (interrupted, killed), its pipe closes: nothing keeps this host, its connections or the schema alive.
process.stdin.on('end', () => process.exit(0));
say('ready');
`;

class OtherHost {
  readonly #child: ReturnType<typeof spawn>;
  readonly #said: string[] = [];
  readonly #waiters = new Set<() => void>();
  readonly exited: Promise<void>;
  errors = '';

  constructor(storeModule: string, url: string, schema: string) {
    this.#child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, storeModule, url, schema], { stdio: ['pipe', 'pipe', 'pipe'] });
    const child = this.#child;
    this.exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    let partial = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      partial += chunk.toString();
      const lines = partial.split('\n');
      partial = lines.pop()!;
      this.#said.push(...lines.map((l) => l.trim()).filter(Boolean));
      for (const wake of this.#waiters) wake();
    });
    child.stderr!.on('data', (chunk: Buffer) => (this.errors += chunk.toString()));
    child.once('exit', () => {
      for (const wake of this.#waiters) wake();
    });
  }

  send(command: string): void {
    this.#child.stdin!.write(`${command}\n`);
  }

  /** Whether the other host said `word` (counting from its first line) within `ms`; consumes it. */
  async said(word: string, ms = PATIENCE_MS): Promise<boolean> {
    const deadline = Date.now() + ms;
    for (;;) {
      const at = this.#said.indexOf(word);
      if (at >= 0) {
        this.#said.splice(at, 1);
        return true;
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0 || this.#child.exitCode !== null || this.#child.signalCode !== null) return false;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.#waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, remaining);
        this.#waiters.add(wake);
      });
    }
  }

  /** What went wrong on the other side, for a message. */
  whatItSaid(): string {
    const errors = this.#said.filter((l) => l.startsWith('error '));
    return [...errors, ...this.errors.trim().split('\n').slice(-3)].filter(Boolean).join(' / ') || 'nothing';
  }

  async kill(): Promise<void> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      this.#child.kill('SIGKILL');
      await this.exited;
    }
  }
}

/** Waits up to `ms` for `promise`; whether it settled in time. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

function check(name: string, passed: boolean, expected: string, actual: string, message = actual): CheckResult {
  return { name, passed, message, expected, actual };
}

/** Ends the server session holding the conversation's lock in `schema` (as a DBA's `pg_terminate_backend` would); how many it ended. */
async function terminateHolder(url: string, schema: string): Promise<number> {
  const { classid, objid } = pgLocksIds(advisoryKey(schema, 'turn', CONVERSATION));
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const ended = await client.query(
      `SELECT pg_terminate_backend(pid) AS ended FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND classid = $1 AND objid = $2 AND objsubid = 1
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [classid, objid],
    );
    return ended.rows.filter((r: { ended: boolean }) => r.ended).length;
  } finally {
    await client.end();
  }
}

/**
 * Waits until PostgreSQL's lock table shows a request for the conversation's lock
 * in `schema` waiting (not granted), or `done()` says there is no need; false if
 * neither within the patience.
 */
async function waitingInPostgres(url: string, schema: string, done: () => boolean): Promise<boolean> {
  const { classid, objid } = pgLocksIds(advisoryKey(schema, 'turn', CONVERSATION));
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const deadline = Date.now() + PATIENCE_MS;
    while (Date.now() < deadline) {
      if (done()) return true;
      const waiting = await client.query(
        `SELECT count(*)::int AS n FROM pg_locks
          WHERE locktype = 'advisory' AND NOT granted AND classid = $1 AND objid = $2 AND objsubid = 1
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        [classid, objid],
      );
      if ((waiting.rows[0] as { n: number }).n > 0) return true;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return false;
  } finally {
    await client.end();
  }
}

export async function postgresLockAcrossProcesses(url: string): Promise<CheckResult[]> {
  const schema = `lg_contract_${process.pid}_${randomBytes(4).toString('hex')}`;
  const storeModule = new URL(`../stores/postgres-store${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href;
  let mine: EventStore | undefined;
  let other: OtherHost | undefined;
  const checks: CheckResult[] = [];
  const failed = (name: string, what: string) => [...checks, check(name, false, 'done', 'not done', `${what}: ${other?.whatItSaid() ?? 'nothing'}`)];
  try {
    mine = await PostgresEventStore.open(url, { schema }); // creates the schema before the other host opens it
    other = new OtherHost(storeModule, url, schema);
    if (!(await other.said('ready'))) return failed('the other process opens the store', 'it did not');
    other.send('lock');
    if (!(await other.said('held'))) return failed('the other process takes the lock', 'it did not');

    // 1. While the other host holds the lock, this one waits.
    let granted = false;
    const waiting = mine.lock!(CONVERSATION, AbortSignal.timeout(3 * PATIENCE_MS)).then((release) => {
      granted = true;
      return release;
    });
    // Handled here too: a path that returns before waiting for it must not leave its rejection (at close) unhandled.
    waiting.catch(() => undefined);
    // Until this process's request is in PostgreSQL's queue (or was granted): a request still on its way proves nothing.
    if (!(await waitingInPostgres(url, schema, () => granted)))
      return failed('this process waits in PostgreSQL for the lock the other process holds', `no waiting request within ${PATIENCE_MS / 1000} s`);
    const whileHeld = granted;
    checks.push(
      check(
        'while another process holds a conversation lock, this process waits for it',
        !whileHeld,
        'waited',
        whileHeld ? 'granted' : 'waited',
        whileHeld ? 'granted at once: two hosts would run turns of one conversation together' : 'waited',
      ),
    );

    // 2. Released by a host that goes on running (its connections open), the lock is granted here.
    other.send('release');
    const released = await other.said('released');
    const afterRelease = released && (await within(waiting, PATIENCE_MS));
    checks.push(
      check(
        'once the other process releases it — still running, its connections open — this process is granted it',
        afterRelease,
        'granted',
        afterRelease ? 'granted' : 'not granted',
        afterRelease
          ? 'granted'
          : released
            ? `not granted within ${PATIENCE_MS / 1000} s of the release: the lock stays with the other host until it exits, and no other host can take the conversation`
            : `the other process could not release it: ${other.whatItSaid()}`,
      ),
    );
    if (!afterRelease) return checks;
    let release: Release = await waiting;

    // 3. Uncontended, the other host holds the lock on the connection it shares for such locks: that session ended, it is told.
    await release();
    other.send('lock');
    if (!(await other.said('held')))
      return failed('once this process released the lock, the other process takes it', `it did not within ${PATIENCE_MS / 1000} s`);
    const uncontended = await lostWhenEnded(url, schema, other, 2, 'held uncontended (on the connection shared by such locks)');
    checks.push(uncontended);
    if (!uncontended.passed) return checks; // the other host may still hold it: this process would wait for good

    // 4. Contended, it waits on a connection of its own, which then holds the lock: that session ended, it is told too.
    release = await mine.lock!(CONVERSATION, AbortSignal.timeout(PATIENCE_MS));
    other.send('lock');
    // Until it waits in PostgreSQL's queue: released before, it would take the lock at once on its shared connection.
    if (!(await waitingInPostgres(url, schema, () => false))) {
      await release();
      return failed('the other process waits in PostgreSQL for the lock this process holds', `no waiting request within ${PATIENCE_MS / 1000} s`);
    }
    await release();
    if (!(await other.said('held'))) return failed('the other process, waiting, is granted the lock once released', 'it was not');
    const waited = await lostWhenEnded(url, schema, other, 3, 'granted after a wait (on a connection of its own)');
    checks.push(waited);
    if (!waited.passed) return checks;

    // 5. Released while a turn of this process queues for it and the other process waits in PostgreSQL, the lock goes to
    // the other process: handed to this process's own waiter, the other host would wait as long as this one has turns
    // (mutation seed 51: with the unlock taken out, this process kept the lock).
    release = await mine.lock!(CONVERSATION, AbortSignal.timeout(PATIENCE_MS));
    let localGranted = false;
    const local = mine.lock!(CONVERSATION, AbortSignal.timeout(3 * PATIENCE_MS)).then((next) => {
      localGranted = true;
      return next;
    });
    local.catch(() => undefined);
    other.send('lock');
    if (!(await waitingInPostgres(url, schema, () => false))) {
      await release();
      await (await local)();
      return failed(
        'the other process waits in PostgreSQL for the lock this process holds, a turn of its own queued behind it',
        `no waiting request within ${PATIENCE_MS / 1000} s`,
      );
    }
    await release();
    const otherFirst = (await other.said('held', PATIENCE_MS)) && !localGranted;
    checks.push(
      check(
        'released while another process waits for it in PostgreSQL and a turn of this process queues for it, the lock goes to the other process first',
        otherFirst,
        'the other process',
        otherFirst ? 'the other process' : localGranted ? "this process's queued turn" : 'nobody',
        otherFirst
          ? 'the other process'
          : localGranted
            ? "handed to this process's queued turn: a busy host keeps a conversation from every other host"
            : `the other process was not granted it within ${PATIENCE_MS / 1000} s: ${other.whatItSaid()}`,
      ),
    );
    other.send('release');
    await other.said('released');
    if (await within(local, PATIENCE_MS)) await (await local)();

    // 6. A lock whose caller gives up while it is being taken (its signal aborted as the grant is under way) is refused
    // and left free: kept by this process's shared session, it locked every other host out of the conversation while
    // this one never noticed — a session re-takes its own advisory lock (outside probe 66b, plant pg-aborted-grant-kept).
    const giveUp = new AbortController();
    const taking = mine.lock!(CONVERSATION, giveUp.signal);
    setImmediate(() => giveUp.abort());
    const refused = await taking.then(
      async (granted) => {
        await granted(); // granted before the abort landed: released here, which proves nothing either way
        return false;
      },
      () => true,
    );
    other.send('lock');
    const free = await other.said('held', PATIENCE_MS);
    checks.push(
      check(
        'a lock whose caller gave up while it was being taken is left free: another process is granted it',
        free,
        'granted',
        free ? 'granted' : 'not granted',
        free
          ? refused
            ? 'granted'
            : 'granted (this process was granted it before the abort landed, and released it)'
          : `not granted within ${PATIENCE_MS / 1000} s: this process's session kept the lock its caller gave up, and no other host can take the conversation (${other.whatItSaid()})`,
      ),
    );
    if (free) {
      other.send('release');
      await other.said('released');
    }
    return checks;
  } catch (error) {
    return [...checks, check('the conversation lock across processes', false, 'no error', 'threw', `the store threw: ${describe(error)}`)];
  } finally {
    await other?.kill();
    await mine?.close().catch(() => undefined);
    await dropSchemas(url, [schema]).catch(() => undefined);
  }
}

async function lostWhenEnded(url: string, schema: string, other: OtherHost, which: number, how: string): Promise<CheckResult> {
  const name = `a lock ${how}: when PostgreSQL ends the session holding it, its holder is told the lock is lost`;
  const ended = await terminateHolder(url, schema);
  if (ended !== 1) return check(name, false, 'told', 'not found', `the session holding the lock was not found in pg_locks (${ended} ended)`);
  const told = await other.said(`lost ${which}`);
  // As a host does once told: it lets go of what it held (the process's own queue for the conversation).
  other.send('release');
  if (told && !(await other.said('released')))
    return check(name, false, 'released', 'not released', `told, but its release then never settled: ${other.whatItSaid()}`);
  return check(
    name,
    told,
    'told',
    told ? 'told' : 'not told',
    told ? 'told' : `not told within ${PATIENCE_MS / 1000} s: the host would run its turn on — its tools too — while another host takes the conversation`,
  );
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0]! : String(error);
}
