/**
 * The EventStore contract (src/stores/contract/cases.ts) on the stores loopgate
 * ships, as cases of `loopgate run`: `contract:store/<store>/<id>`.
 *
 * The production host keeps every conversation in one of these stores (SQLite by
 * default), and the scenarios' test host keeps them in memory; a store that
 * lost a batch's atomicity, sorted conversations wrong or let two lock holders
 * in would pass every scenario that never raced it. Each SQLite case works in a
 * directory of its own under the system's temporary directory, removed after it.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describeError } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { records, runStoreContractCase, sampleRecord, STORE_CONTRACT, type StoreContractCase } from '../stores/contract/cases.ts';
import { StoreContractFailure } from '../stores/contract/expect.ts';
import { StoreError, StoreInUseError, type EventStore } from '../stores/event-store.ts';
import { PgGroupCommit } from '../stores/postgres-group-commit.ts';
import pg from 'pg';
import { openStore, type StoreConfig } from '../stores/from-config.ts';
import { MemoryEventStore } from '../stores/memory-store.ts';
import { PostgresEventStore } from '../stores/postgres-store.ts';
import { dropSchemas } from '../stores/postgres-schemas.ts';
import { advisoryKey, pgLocksIds } from '../stores/postgres-store-lock.ts';
import { passwordOf } from '../stores/postgres-store-url.ts';
import { SqliteEventStore } from '../stores/sqlite-store.ts';
import { checksCase, statusFromChecks, type Case } from './cases.ts';
import { postgresLockAcrossProcesses } from './postgres-lock-cases.ts';

const FILE = 'src/stores/contract/cases.ts';

interface BundledStore {
  readonly name: string;
  /** Runs `body` with a factory of fresh, empty stores, cleaning up after. */
  withFactory(body: (factory: () => EventStore | Promise<EventStore>) => Promise<void>): Promise<void>;
}

const STORES: readonly BundledStore[] = [
  { name: 'memory', withFactory: (body) => body(() => new MemoryEventStore()) },
  {
    name: 'sqlite',
    async withFactory(body) {
      const dir = mkdtempSync(join(tmpdir(), 'loopgate-store-contract-'));
      let files = 0;
      try {
        await body(() => new SqliteEventStore(join(dir, `store-${files++}.db`)));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  },
];

async function checkOn(store: BundledStore, c: StoreContractCase): Promise<CheckResult[]> {
  try {
    await store.withFactory((factory) => runStoreContractCase(c, factory));
    return [{ name: 'store contract', passed: true, message: c.title }];
  } catch (error) {
    if (error instanceof StoreContractFailure) {
      return [{ name: 'store contract', passed: false, message: error.message, expected: error.expected, actual: error.actual }];
    }
    return [{ name: 'store contract', passed: false, message: `the store threw: ${describeError(error)}` }];
  }
}

/**
 * The SQLite writer claim across processes: a child process (a second host on
 * the same machine) claims a file; while it lives, this process must be
 * refused the file (two hosts on one file would recover each other's live
 * turns as crashed), and once it is killed (-9, no release) its claim is
 * stale and this process takes the file. Every other case claims within one
 * process, where the owner's pid is this one: a claim that took a live other
 * process for a dead one passed the gate (probe 21, F4).
 */
async function writerClaimAcrossProcesses(): Promise<CheckResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'loopgate-writer-claim-'));
  const file = join(dir, 'shared.db');
  // The store module as this process runs it (TypeScript sources in the repository, JavaScript when installed).
  const storeModule = new URL(`../stores/sqlite-store${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href;
  const script = [
    'const { SqliteEventStore } = await import(process.argv[1]);',
    'const store = new SqliteEventStore(process.argv[2]);',
    'await store.claimWriter();',
    "process.stdout.write('claimed\\n');",
    'setInterval(() => {}, 60_000);',
  ].join('\n');
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, storeModule, file], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  try {
    const claimed = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 15_000);
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('claimed')) {
          clearTimeout(timer);
          resolve(true);
        }
      });
      child.once('exit', () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    if (!claimed)
      return [
        { name: 'the other process claims the file', passed: false, message: `it did not: ${errors.trim().split('\n').slice(-3).join(' / ') || 'no output'}` },
      ];
    const whileAlive = await claimOutcome(file);
    child.kill('SIGKILL');
    await exited;
    const afterKill = await claimOutcome(file);
    return [
      {
        name: 'while the other process lives, its claim holds: this process is refused the file',
        passed: whileAlive.startsWith('refused'),
        message: whileAlive,
        expected: 'refused (StoreInUseError)',
        actual: whileAlive,
      },
      {
        name: 'once it is killed, its claim is stale: this process takes the file',
        passed: afterKill === 'claimed',
        message: afterKill,
        expected: 'claimed',
        actual: afterKill,
      },
    ];
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A row SQLite refuses (a constraint, a trigger, a full disk at that page) in a
 * group commit: only its batch is refused — none of its rows stored, not even
 * the ones before the refused row — and the other conversations' batches in the
 * same group are stored and answered. Each bundled case writes one batch at a
 * time, where the store's isolated path (a savepoint per batch, taken only once
 * a row is refused) never runs. The refusal is a trigger put on the file.
 */
async function rowRefusedBySqlite(): Promise<CheckResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'loopgate-row-refused-'));
  const file = join(dir, 'refusing.db');
  const store = new SqliteEventStore(file);
  try {
    await store.append('warm', records(0, 1)); // creates the tables
    const setup = new DatabaseSync(file);
    setup.exec("CREATE TRIGGER refuse_boom BEFORE INSERT ON events WHEN NEW.type = 'boom' BEGIN SELECT RAISE(ABORT, 'boom refused'); END");
    setup.close();
    const settled = await Promise.allSettled([
      store.append('orders-a', records(0, 2)),
      store.append('orders-b', [sampleRecord(0), sampleRecord(1, { type: 'boom' })]),
      store.append('orders-c', records(0, 1)),
      // In the same group, a batch whose seqs do not continue its conversation: refused before its savepoint, alone
      // (mutation seed 52: a savepoint taken for granted, rolled back to one that was not there, failed the group).
      store.append('warm', records(5, 1)),
    ]);
    const answers = settled.map((r) => (r.status === 'fulfilled' ? 'stored' : `refused: ${describeError(r.reason)}`));
    const lengths = [
      (await store.read('orders-a')).length,
      (await store.read('orders-b')).length,
      (await store.read('orders-c')).length,
      (await store.read('warm')).length,
    ];
    const next = await store.append('orders-b', records(0, 1)).then(
      () => 'stored',
      (error: unknown) => `refused: ${describeError(error)}`,
    );
    return [
      {
        name: 'only the batch holding the refused row is refused, naming what SQLite said',
        passed:
          answers[0] === 'stored' &&
          answers[2] === 'stored' &&
          /^refused: .*boom refused/.test(answers[1]!) &&
          /^refused: StoreConflictError/.test(answers[3]!),
        message: answers.join('; '),
        expected: 'stored; refused: … boom refused …; stored; refused: StoreConflictError …',
        actual: answers.join('; '),
      },
      {
        name: 'the others in its group are stored whole; of the refused batch, nothing',
        passed: lengths.join(',') === '2,0,1,1',
        message: `orders-a ${lengths[0]}, orders-b ${lengths[1]}, orders-c ${lengths[2]}, warm ${lengths[3]} record(s)`,
        expected: '2, 0, 1, 1',
        actual: lengths.join(', '),
      },
      {
        name: 'the refused conversation goes on from where it was: its next batch starts at seq 0',
        passed: next === 'stored',
        message: next,
      },
    ];
  } finally {
    await store.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether this process can claim the file's writer: `claimed`, `refused (…)`, or what went wrong. */
/**
 * The file a host writes, removed or replaced under it (a deploy script cleaning
 * the data directory, a volume remounted): its writes would land in an unlinked
 * file — answered "stored", gone at the next restart — and a second host would
 * claim a new file at the path and serve the same conversations from nothing
 * (outside probe 33, B1). The writer must notice, refuse every later write
 * naming why, and write nothing more — also once another file is at the path.
 */
async function fileRemovedUnderTheWriter(): Promise<CheckResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'loopgate-removed-'));
  const data = join(dir, 'data');
  mkdirSync(data);
  const file = join(data, 'agent.db');
  const store = new SqliteEventStore(file);
  const outcome = async (from: number): Promise<string> => {
    try {
      await store.append('c1', records(from, 1));
      return 'stored';
    } catch (error) {
      return `refused: ${describeError(error)}`;
    }
  };
  try {
    await store.claimWriter();
    const before = await outcome(0);
    rmSync(data, { recursive: true, force: true });
    const removed = await outcome(1);
    // Another file at the path (restored from a backup, another host's): still not this writer's.
    mkdirSync(data);
    const other = new SqliteEventStore(join(dir, 'other.db'));
    await other.close();
    copyFileSync(join(dir, 'other.db'), file);
    const replaced = await outcome(1);
    const refused = (said: string) => said.startsWith('refused: StoreInUseError') && said.includes(file);
    // Replaced with no write in between (a restore over the file): noticed as such on its own, not through the removal.
    const swapped = await replacedUnderTheWriter(dir);
    return [
      { name: 'an append to the file in place is stored', passed: before === 'stored', message: before },
      { name: 'its directory removed: the next append is refused, naming the file', passed: refused(removed), message: removed },
      { name: 'another file at the path: still refused', passed: refused(replaced), message: replaced },
      {
        name: 'the file replaced with no write in between: refused as replaced, telling to start a new host',
        passed:
          swapped.startsWith('refused: StoreInUseError') &&
          /was replaced by another file while this process wrote it; .*this host does not resume: start a new host/.test(swapped),
        message: swapped,
      },
    ];
  } finally {
    await store.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A writer's file replaced by another (renamed over it) between two appends: what the second append says. */
async function replacedUnderTheWriter(dir: string): Promise<string> {
  const file = join(dir, 'swapped.db');
  const store = new SqliteEventStore(file);
  try {
    await store.claimWriter();
    await store.append('c1', records(0, 1));
    const other = new SqliteEventStore(join(dir, 'backup.db'));
    await other.close();
    renameSync(join(dir, 'backup.db'), file);
    await store.append('c1', records(1, 1));
    return 'stored';
  } catch (error) {
    return `refused: ${describeError(error)}`;
  } finally {
    await store.close().catch(() => undefined);
  }
}

async function claimOutcome(file: string): Promise<string> {
  const store = new SqliteEventStore(file);
  try {
    await store.claimWriter();
    return 'claimed';
  } catch (error) {
    return error instanceof StoreInUseError ? `refused (StoreInUseError): ${error.message.slice(0, 120)}` : `failed: ${describeError(error)}`;
  } finally {
    await store.close();
  }
}

/** Where the PostgreSQL store contract runs: a database loopgate may create (and drop) schemas of its own in. */
export const POSTGRES_URL_ENV = 'LOOPGATE_POSTGRES_URL';
/** The repository's tests' server (.ci/run sets it), taken when the first is not set. */
const TEST_POSTGRES_URL_ENV = 'LOOPGATE_TEST_POSTGRES_URL';

function postgresUrl(): string | undefined {
  for (const name of [POSTGRES_URL_ENV, TEST_POSTGRES_URL_ENV]) {
    const url = process.env[name]?.trim();
    if (url) return url;
  }
  return undefined;
}

/**
 * The store contract on PostgreSQL — the store many hosts share — when a server
 * is named: each contract case in a schema of its own, dropped after it. One
 * case (skipped, saying how to run it, when no server is named), a check per
 * contract case.
 */
const postgresContract: Case = {
  id: 'contract:store/postgres/store-contract',
  kind: 'contract',
  title: `postgres store: the store contract (${STORE_CONTRACT.filter((c) => c.needs === undefined).length} cases), each in a schema of its own`,
  file: FILE,
  async run() {
    const url = postgresUrl();
    if (url === undefined)
      return { status: 'skipped', checks: [], skipReason: `no PostgreSQL server named: set ${POSTGRES_URL_ENV} to a database loopgate may create schemas in` };
    const password = passwordOf(url);
    const checks: CheckResult[] = [];
    for (const c of STORE_CONTRACT) {
      if (c.needs !== undefined) continue; // the PostgreSQL store keeps no snapshots
      const schemas: string[] = [];
      const postgres: BundledStore = {
        name: 'postgres',
        async withFactory(body) {
          try {
            await body(() => {
              const schema = `lg_contract_${process.pid}_${randomBytes(4).toString('hex')}`;
              schemas.push(schema);
              return PostgresEventStore.open(url, { schema });
            });
          } finally {
            // Left behind if the server is gone: each is named lg_contract_<pid>_<hex>, for whoever cleans up.
            await dropSchemas(url, schemas).catch(() => undefined);
          }
        },
      };
      for (const check of await checkOn(postgres, c)) checks.push({ ...check, name: `store contract: ${c.id}` });
    }
    checks.push(...(await postgresAsTheServerSeesIt(url)));
    checks.push(...(await postgresLockAcrossProcesses(url)));
    return { status: statusFromChecks(checks), outcome: 'checked', checks, ...(password ? { secrets: [password] } : {}) };
  },
};

export function storeCases(): Case[] {
  return [
    ...STORES.flatMap((store) =>
      STORE_CONTRACT.map((c) =>
        checksCase({ id: `contract:store/${store.name}/${c.id}`, title: `${store.name} store: ${c.title}`, file: FILE }, () => checkOn(store, c)),
      ),
    ),
    checksCase(
      {
        id: 'contract:store/sqlite/writer-claim-held-by-another-live-process',
        title: "sqlite store: another live process's writer claim refuses this one; killed, it is stale and taken",
        file: 'src/harness/store-cases.ts',
      },
      writerClaimAcrossProcesses,
    ),
    checksCase(
      {
        id: 'contract:store/sqlite/file-removed-under-the-writer-writes-nothing',
        title: 'sqlite store: the file removed or replaced under a claimed writer refuses every later write, naming it',
        file: 'src/harness/store-cases.ts',
      },
      fileRemovedUnderTheWriter,
    ),
    checksCase(
      {
        id: 'contract:store/sqlite/row-refused-by-sqlite-refuses-its-batch-alone',
        title: 'sqlite store: a row SQLite refuses in a group commit refuses its batch whole, and only it',
        file: 'src/harness/store-cases.ts',
      },
      rowRefusedBySqlite,
    ),
    checksCase(
      {
        id: 'contract:store/postgres/group-commit-failures-answer-each-batch',
        title:
          'postgres group commit, on a scripted connection: a failed COMMIT rejects every batch ("may or may not") and never pools the connection; a key conflict retries each batch alone',
        file: 'src/harness/store-cases.ts',
      },
      groupCommitFailures,
    ),
    checksCase(
      {
        id: 'contract:store/open-refusals-named',
        title:
          'stores: an unknown store kind, a PostgreSQL URL naming no database and a refused connection are each refused with a StoreError naming it, never opened',
        file: 'src/harness/store-cases.ts',
      },
      openRefusals,
    ),
    postgresContract,
  ];
}

/**
 * What a fresh schema and a held lock look like from the server's side: the
 * schema's version recorded in loopgate_meta (a later loopgate reads it to know
 * what it opens; missing, it would take any schema for its own), and the
 * session holding a conversation lock named `<applicationName>-lock` in
 * pg_stat_activity (how a DBA tells the lock sessions, idle for as long as a
 * turn runs, from the store's queries).
 */
async function postgresAsTheServerSeesIt(url: string): Promise<CheckResult[]> {
  const schema = `lg_contract_${process.pid}_${randomBytes(4).toString('hex')}`;
  let store: PostgresEventStore | undefined;
  let second: PostgresEventStore | undefined;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    store = await PostgresEventStore.open(url, { schema, applicationName: 'support-host' });
    await client.connect();
    const meta = await client.query<{ key: string; value: string }>(`SELECT key, value FROM "${schema}".loopgate_meta ORDER BY key`);
    const version = meta.rows.map((r) => `${r.key}=${r.value}`).join(', ') || 'no row';
    const { classid, objid } = pgLocksIds(advisoryKey(schema, 'turn', 'c'));
    /** The application names of the sessions holding (or, `waiting`, waiting for) the lock of conversation c. */
    const sessions = async (granted: boolean) => {
      const rows = await client.query<{ name: string }>(
        `SELECT a.application_name AS name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
          WHERE l.locktype = 'advisory' AND l.granted = $3 AND l.classid = $1 AND l.objid = $2 AND l.objsubid = 1
            AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        [classid, objid, granted],
      );
      return rows.rows.map((r) => JSON.stringify(r.name)).join(', ') || 'no session';
    };
    // Uncontended: held on the connection the store shares for such locks.
    const release = await store.lock('c', AbortSignal.timeout(15_000));
    const names = await sessions(true);
    // Contended: a second host's request waits on a pooled connection of its own, which then holds the lock.
    second = await PostgresEventStore.open(url, { schema, applicationName: 'support-host' });
    const waiting = second.lock('c', AbortSignal.timeout(15_000));
    waiting.catch(() => undefined);
    const deadline = Date.now() + 15_000;
    let waited = 'no session';
    while ((waited = await sessions(false)) === 'no session' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await release();
    const releaseSecond = await waiting;
    const afterWait = await sessions(true);
    await releaseSecond();
    return [
      {
        name: 'a fresh schema records the version of its tables',
        passed: version === 'schema_version=1',
        message: version,
        expected: 'schema_version=1',
        actual: version,
      },
      {
        name: 'the session holding a conversation lock is named <applicationName>-lock',
        // The wait itself seen in PostgreSQL: a second request that never waited would test no contended path.
        passed: names === '"support-host-lock"' && waited === '"support-host-lock"' && afterWait === '"support-host-lock"',
        message: `held uncontended: ${names}; waiting: ${waited}; granted after the wait: ${afterWait}`,
        expected: 'held uncontended: "support-host-lock"; waiting: "support-host-lock"; granted after the wait: "support-host-lock"',
        actual: `held uncontended: ${names}; waiting: ${waited}; granted after the wait: ${afterWait}`,
      },
    ];
  } catch (error) {
    return [{ name: 'the PostgreSQL store as the server sees it', passed: false, message: `the store threw: ${describeError(error)}` }];
  } finally {
    await client.end().catch(() => undefined);
    await store?.close().catch(() => undefined);
    await second?.close().catch(() => undefined);
    await dropSchemas(url, [schema]).catch(() => undefined);
  }
}

/**
 * The group commit's failure paths, which a live server cannot be made to take on
 * demand (a COMMIT whose connection breaks, a writer that skipped the append
 * lock): its own code, on a connection that answers as scripted. Needs no server,
 * so every gate runs it (outside probe 31, F14: resolving the batches before
 * COMMIT — a STATEFUL call's start record reported stored when the COMMIT then
 * failed — passed the PostgreSQL store contract).
 */
async function groupCommitFailures(): Promise<CheckResult[]> {
  const checks: CheckResult[] = [];
  const run = async (fail: { readonly commit?: boolean; readonly insertCode?: string }) => {
    const sent: string[] = [];
    const released: unknown[] = [];
    const alone: string[] = [];
    /** The events the group commit listens for on the connection, while it listens. */
    const listening: string[] = [];
    const client = {
      query: async (q: string | { text: string }) => {
        const text = typeof q === 'string' ? q : q.text;
        sent.push(text.split(' ')[0]!);
        if (text === 'COMMIT' && fail.commit) throw Object.assign(new Error('Connection terminated unexpectedly'), { code: undefined });
        if (text === 'INSERT' && fail.insertCode) throw Object.assign(new Error('duplicate key value violates unique constraint'), { code: fail.insertCode });
        return { rows: [] };
      },
      on: (event: string) => {
        listening.push(event);
        return client;
      },
      off: (event: string) => {
        const i = listening.indexOf(event);
        if (i >= 0) listening.splice(i, 1);
        return client;
      },
      release: (broken?: unknown) => void released.push(broken ?? false),
    };
    const group = new PgGroupCommit({
      connect: async () => client as unknown as pg.PoolClient,
      appendKey: (id) => String(id.length),
      sql: { maxSeqs: 'SELECT', insertMany: 'INSERT' },
      appendAlone: async (batch) => {
        alone.push(batch.conversationId);
        if (batch.conversationId === 'c-b') throw new StoreError(`${batch.conversationId}: refused alone`);
      },
      writeError: (batch, stage, error) =>
        new StoreError(
          `${batch.conversationId}: ${stage === 'commit' ? 'COMMIT failed: the batch may or may not be stored' : 'write failed'} (${(error as Error).message})`,
        ),
    });
    const batch = (conversationId: string) => ({ conversationId, records: records(0, 2), columns: Array.from({ length: 7 }, () => [0, 1]) });
    const answers = await Promise.allSettled([group.append(batch('c-a')), group.append(batch('c-b'))]);
    await group.drained();
    return {
      sent,
      released,
      alone,
      listening,
      answers: answers.map((a) => (a.status === 'fulfilled' ? 'stored' : String((a.reason as Error).message))),
    };
  };

  const commit = await run({ commit: true });
  const rejected = commit.answers.every((a) => a.includes('may or may not be stored'));
  checks.push({
    name: 'a failed COMMIT rejects every batch of the group, saying it may or may not be stored',
    passed: rejected && commit.sent.includes('COMMIT'),
    message: `answers ${JSON.stringify(commit.answers)} after ${commit.sent.join(', ')}`,
  });
  const pooled = commit.released.length === 1 && commit.released[0] !== false;
  checks.push({
    name: 'the connection whose COMMIT failed is destroyed, not handed back to the pool',
    passed: pooled,
    message: `released ${JSON.stringify(commit.released.map((r) => (r === false ? 'to the pool' : 'destroyed')))}`,
  });
  const conflict = await run({ insertCode: '23505' });
  const eachAlone = JSON.stringify(conflict.alone) === JSON.stringify(['c-a', 'c-b']);
  const ownAnswers = conflict.answers[0] === 'stored' && conflict.answers[1] === 'c-b: refused alone';
  checks.push({
    name: 'a key conflict in the group INSERT rolls it back and retries each batch alone, each with its own answer',
    passed: eachAlone && ownAnswers && conflict.sent.includes('ROLLBACK'),
    message: `alone ${JSON.stringify(conflict.alone)}, answers ${JSON.stringify(conflict.answers)}, sent ${conflict.sent.join(', ')}`,
  });
  const clean = await run({});
  checks.push({
    name: 'a group that commits stores every batch and pools its connection',
    passed: clean.answers.every((a) => a === 'stored') && clean.released.length === 1 && clean.released[0] === false,
    message: `answers ${JSON.stringify(clean.answers)}, released ${clean.released.length}`,
  });
  // A pooled connection is handed back as it was taken: a listener left on it (mutation seed 52: the error listener
  // kept) would pile up one per group on every connection (a MaxListenersExceededWarning after ten) and swallow errors.
  const left = [commit, conflict, clean].map((r) => r.listening.join(',') || 'none');
  checks.push({
    name: 'no listener is left on the connection once it is released (failed COMMIT, key conflict, clean commit)',
    passed: left.every((l) => l === 'none'),
    message: `left listening: ${left.join(' / ')}`,
  });
  return checks;
}

/**
 * What `openStore` and `PostgresEventStore.open` (both exported) answer a store they cannot open, before any server is
 * needed: a store kind the config does not know, a PostgreSQL URL naming no database, and a server that refuses the
 * connection (a port nobody listens on) — each a `StoreError` naming what to fix, and the open rejected, never a store
 * handed back. Mutation seed 52: the unknown kind answered `undefined`, the missing database's message made "", a
 * refused connection described without its code, and a failed open resolving with a broken store; no case opened one.
 */
async function openRefusals(): Promise<CheckResult[]> {
  const outcome = async (open: () => Promise<EventStore>): Promise<string> => {
    try {
      const store = await open();
      await store?.close?.().catch(() => undefined);
      return `opened (${store === undefined ? 'undefined' : 'a store'})`;
    } catch (error) {
      return `${error instanceof StoreError ? 'StoreError' : describeError(error)}: ${(error as Error).message}`;
    }
  };
  const closedPort = await new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
  const rows: [string, string, (got: string) => boolean, string][] = [
    [
      'an unknown store kind',
      await outcome(() => openStore({ kind: 'redis' } as unknown as StoreConfig)),
      (got) => got === 'StoreError: store.kind: unknown store kind "redis" (expected memory, sqlite or postgres)',
      'StoreError: store.kind: unknown store kind "redis" (expected memory, sqlite or postgres)',
    ],
    [
      'a PostgreSQL URL naming no database',
      await outcome(() => PostgresEventStore.open('postgres://loopgate@127.0.0.1:5432')),
      (got) => got.startsWith('StoreError: ') && got.endsWith(': the URL names no database (add it as the path, e.g. postgres://user@host:5432/loopgate)'),
      'StoreError: …: the URL names no database (add it as the path, e.g. postgres://user@host:5432/loopgate)',
    ],
    [
      'a server that refuses the connection',
      await outcome(() => PostgresEventStore.open(`postgres://loopgate@127.0.0.1:${closedPort}/loopgate`, { connectTimeoutMs: 5_000 })),
      (got) => got.startsWith('StoreError: ') && got.includes('connection refused (is a PostgreSQL server running and listening there?)'),
      'StoreError: … connection refused (is a PostgreSQL server running and listening there?)',
    ],
  ];
  return rows.map(([what, got, ok, expected]) => ({ name: `${what}: refused, naming it`, passed: ok(got), message: got, expected, actual: got }));
}

/** An error in one line: its name and message (a store may throw anything). */
