/**
 * Stores: append throughput (events per second, one batch per loop step) and the
 * time to open a 100,000-event conversation — read it from the store, decode and
 * check every record, build the log, project the history — for the memory store,
 * SQLite and (when a server is given) PostgreSQL. Stores are interleaved: appends in
 * chunks, opens in rounds. Then SQLite with many conversations writing at once
 * (group commit) beside the raw `node:sqlite` limit for the same rows and
 * transactions, and reopening the 100,000-event conversation from a snapshot of
 * its derived state and the tail, as the production host does.
 * Targets: SQLite ≥ 150,000 events/s for many conversations writing at once (CPU
 * time); reopening a 100,000-event conversation ≤ 100 ms.
 *
 * PostgreSQL runs when src/stores/postgres-store.ts exists and a URL is set in
 * LOOPGATE_BENCH_POSTGRES_URL or LOOPGATE_TEST_POSTGRES_URL; it works in a schema
 * of its own, dropped afterwards. Otherwise the results say it was skipped and why.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { systemClock } from '../src/kernel/clock.ts';
import { decodeRecords } from '../src/kernel/log/decode.ts';
import { toRecord, type EventRecord } from '../src/kernel/log/envelope.ts';
import { EventLog } from '../src/kernel/log/event-log.ts';
import { project } from '../src/kernel/projection/projection.ts';
import type { EventStore } from '../src/stores/event-store.ts';
import { MemoryEventStore } from '../src/stores/memory-store.ts';
import { SqliteEventStore } from '../src/stores/sqlite-store.ts';
import { createConversation, createShared } from './loop/loopgate.ts';
import { STEPS_PER_RUN } from './loop/scenario.ts';
import { measureReopen } from './lib/reopen.ts';
import { measureGroups } from './lib/sqlite-group.ts';
import { round, summarize } from './lib/stats.ts';
import { verdict, writeResults, type Table } from './lib/results.ts';

const QUICK = process.env.LOOPGATE_BENCH_QUICK === '1';
const EVENTS = QUICK ? 20_000 : 100_000;
const CHUNK = QUICK ? 4_000 : 10_000;
const OPEN_ROUNDS = QUICK ? 2 : 5;
const SQLITE_TARGET = 100_000;
const GROUP_TARGET = 150_000;
const REOPEN_TARGET_MS = 100;
/** Conversations writing at once; the target is judged at JUDGED_CONVERSATIONS. */
const GROUP_SIZES = QUICK ? [1, 64] : [1, 16, 64, 256];
const JUDGED_CONVERSATIONS = 64;
const GROUP_ROUNDS = QUICK ? 20 : 80;
/** Events after the latest snapshot: none, a few turns, half and all of the default interval (10,000), and no snapshot at all. */
const REOPEN_TAILS = QUICK ? [0, 2_000, undefined] : [0, 1_000, 5_000, 9_999, undefined];
const REOPEN_ROUNDS = QUICK ? 2 : 5;
const CONVERSATION = 'bench-100k';

interface Contender {
  readonly name: string;
  readonly store: EventStore;
  readonly close: () => Promise<void>;
}

/** A real conversation of about `count` events, written by the loop (unique call ids, closed turns). */
async function recordConversation(count: number): Promise<EventRecord[]> {
  const conversation = createConversation(createShared(), { id: CONVERSATION });
  while (conversation.log.length < count) await conversation.turn();
  return conversation.log.events.slice(0, lastClosedBefore(conversation.log.events, count) + 1).map(toRecord);
}

function lastClosedBefore(events: readonly { type: string; seq: number }[], count: number): number {
  for (let i = Math.min(count, events.length) - 1; i >= 0; i--) if (events[i]!.type === 'turn.closed') return i;
  throw new Error('bench: no closed turn');
}

/** The batches the loop flushes: one per step, so about a step's events each. */
function batches(records: readonly EventRecord[]): EventRecord[][] {
  const size = Math.round(records.length / Math.ceil(records.length / 69) / STEPS_PER_RUN); // 69 events per 11-step turn ≈ 6 per step
  const out: EventRecord[][] = [];
  for (let i = 0; i < records.length; i += size) out.push(records.slice(i, i + size));
  return out;
}

async function postgresContender(): Promise<{ contender?: Contender; skipped?: string }> {
  const source = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'stores', 'postgres-store.ts');
  if (!existsSync(source)) return { skipped: 'src/stores/postgres-store.ts does not exist yet' };
  const url = process.env.LOOPGATE_BENCH_POSTGRES_URL?.trim() || process.env.LOOPGATE_TEST_POSTGRES_URL?.trim();
  if (!url) return { skipped: 'neither LOOPGATE_BENCH_POSTGRES_URL nor LOOPGATE_TEST_POSTGRES_URL is set (.ci/run starts a server and sets the second)' };
  const { PostgresEventStore } = await import('../src/stores/postgres-store.ts');
  const schema = `lg_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  const store = await PostgresEventStore.open(url, { schema });
  return {
    contender: {
      name: 'PostgreSQL',
      store,
      close: async () => {
        await store.close();
        const pg = (await import('pg')).default;
        const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
        await client.connect();
        try {
          await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        } finally {
          await client.end();
        }
      },
    },
  };
}

async function main(): Promise<void> {
  const records = await recordConversation(EVENTS);
  const steps = batches(records);
  const dir = mkdtempSync(join(tmpdir(), 'loopgate-bench-'));
  const contenders: Contender[] = [];
  const memory = new MemoryEventStore();
  contenders.push({ name: 'memory', store: memory, close: () => memory.close() });
  const sqlite = new SqliteEventStore(join(dir, 'events.db'));
  contenders.push({ name: 'SQLite (WAL, synchronous=NORMAL)', store: sqlite, close: () => sqlite.close() });
  const pg = await postgresContender();
  if (pg.contender) contenders.push(pg.contender);

  try {
    // Appends, interleaved a chunk at a time.
    const append = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
    let next = 0;
    let chunk = 0;
    while (next < steps.length) {
      let end = next;
      for (let events = 0; end < steps.length && events < CHUNK; end++) events += steps[end]!.length;
      for (let k = 0; k < contenders.length; k++) {
        const c = contenders[(chunk + k) % contenders.length]!;
        let events = 0;
        const start = process.hrtime.bigint();
        for (let i = next; i < end; i++) {
          await c.store.append(CONVERSATION, steps[i]!);
          events += steps[i]!.length;
        }
        const seconds = Number(process.hrtime.bigint() - start) / 1e9;
        append.get(c.name)!.push(events / seconds);
      }
      next = end;
      chunk++;
    }

    // Opening the whole conversation, interleaved by round.
    const phases = ['read', 'decode', 'build log', 'project', 'total'] as const;
    const open = new Map<string, Record<(typeof phases)[number], number[]>>(
      contenders.map((c) => [c.name, { read: [], decode: [], 'build log': [], project: [], total: [] }]),
    );
    let messages = 0;
    for (let r = 0; r < OPEN_ROUNDS; r++) {
      for (let k = 0; k < contenders.length; k++) {
        const c = contenders[(r + k) % contenders.length]!;
        const t0 = performance.now();
        const read = await c.store.read(CONVERSATION);
        const t1 = performance.now();
        const decoded = decodeRecords(read, `${c.store.describe} conversation "${CONVERSATION}"`);
        const t2 = performance.now();
        const log = new EventLog(systemClock, decoded);
        const t3 = performance.now();
        messages = project(log.events).length;
        const t4 = performance.now();
        if (read.length !== records.length) throw new Error(`bench: ${c.name} read ${read.length} records, expected ${records.length}`);
        const o = open.get(c.name)!;
        o.read.push(t1 - t0);
        o.decode.push(t2 - t1);
        o['build log'].push(t3 - t2);
        o.project.push(t4 - t3);
        o.total.push(t4 - t0);
      }
    }

    // How SQLite's rate depends on the batch: each batch is a transaction (BEGIN
    // IMMEDIATE, the stored max seq, the inserts, COMMIT), so small batches pay it often.
    const sizes = [1, steps[0]!.length, 69, 1_000];
    const bySize: { size: number; eventsPerSecond: number }[] = [];
    for (const size of sizes) {
      const store = new SqliteEventStore(join(dir, `batch-${size}.db`));
      const sample = records.slice(0, QUICK ? 6_000 : 20_000);
      const start = process.hrtime.bigint();
      for (let i = 0; i < sample.length; i += size) await store.append(CONVERSATION, sample.slice(i, i + size));
      bySize.push({ size, eventsPerSecond: sample.length / (Number(process.hrtime.bigint() - start) / 1e9) });
      await store.close();
    }

    // Many conversations at once: the store's group commit beside the raw node:sqlite limit.
    const groups = [];
    for (const conversations of GROUP_SIZES) groups.push(await measureGroups(dir, steps, conversations, GROUP_ROUNDS, 5));
    const judged = groups.find((g) => g.conversations === JUDGED_CONVERSATIONS)!;

    // Reopening from a snapshot and the tail (the production host's open), beside a whole read.
    const reopen = await measureReopen(dir, records, REOPEN_TAILS, REOPEN_ROUNDS);
    const halfInterval = reopen.find((r) => r.tail === (QUICK ? 2_000 : 5_000))!;

    const sqliteRate = summarize(append.get(contenders[1]!.name)!).median;
    const tables: Table[] = [
      {
        title: `Append: ${records.length.toLocaleString('en')} events in ${steps.length.toLocaleString('en')} batches (one per loop step, about ${Math.round(records.length / steps.length)} events each)`,
        columns: ['store', 'median events/s', 'p10 – p90', 'chunks'],
        rows: contenders.map((c) => {
          const s = summarize(append.get(c.name)!);
          return [
            c.name,
            Math.round(s.median).toLocaleString('en'),
            `${Math.round(s.p10).toLocaleString('en')} – ${Math.round(s.p90).toLocaleString('en')}`,
            s.samples,
          ];
        }),
        notes: [
          verdict(
            sqliteRate >= SQLITE_TARGET,
            `SQLite batched append ≥ ${SQLITE_TARGET.toLocaleString('en')} events/s (measured ${Math.round(sqliteRate).toLocaleString('en')})`,
          ),
          'Each store checks every batch (envelope fields, gapless seqs, plain JSON payloads) and writes it atomically; SQLite one transaction per batch, PostgreSQL one transaction per batch with its advisory append lock.',
          pg.skipped
            ? `PostgreSQL skipped: ${pg.skipped}.`
            : 'PostgreSQL: the server given by the URL, in a schema of its own (dropped afterwards); the numbers depend on that server’s settings (.ci/run’s test cluster runs with fsync=off, synchronous_commit=off).',
        ],
      },
      {
        title: 'SQLite append by batch size (events/s, one pass each)',
        columns: ['events per batch', 'events/s'],
        rows: bySize.map((b) => [
          b.size === steps[0]!.length ? `${b.size} (one loop step)` : b.size === 69 ? '69 (one 11-step turn)' : b.size,
          Math.round(b.eventsPerSecond).toLocaleString('en'),
        ]),
        notes: ['One transaction per batch: the per-transaction cost (write lock, max-seq check, WAL commit) is spread over more events as batches grow.'],
      },
      {
        title: `SQLite, many conversations writing at once: each appends its step's batch, all in flight together (${GROUP_ROUNDS} groups per size; medians of interleaved chunks of 5)`,
        columns: [
          'conversations',
          'events per group',
          'store events/s (CPU)',
          'store events/s (wall)',
          'raw node:sqlite events/s (CPU)',
          'raw (wall)',
          'store / raw (CPU)',
        ],
        rows: groups.map((g) => [
          g.conversations,
          g.eventsPerGroup,
          Math.round(g.store.cpu.median).toLocaleString('en'),
          Math.round(g.store.wall.median).toLocaleString('en'),
          Math.round(g.raw.cpu.median).toLocaleString('en'),
          Math.round(g.raw.wall.median).toLocaleString('en'),
          `${round(g.store.cpu.median / g.raw.cpu.median, 2)}`,
        ]),
        notes: [
          verdict(
            judged.store.cpu.median >= GROUP_TARGET,
            `SQLite ≥ ${GROUP_TARGET.toLocaleString('en')} events/s with ${JUDGED_CONVERSATIONS} conversations writing at once, group commit (measured ${Math.round(judged.store.cpu.median).toLocaleString('en')} per CPU-second, ${Math.round(judged.store.wall.median).toLocaleString('en')} per wall-second)`,
          ),
          'store: `SqliteEventStore.append` per conversation (envelope checks, plain-JSON payload check, serialization, gapless-seq check against the stored max seq, a savepoint per batch), one transaction per group (WAL, synchronous=NORMAL). raw: the same rows pre-serialized, prepared INSERTs between BEGIN IMMEDIATE and COMMIT, nothing checked — the physical limit of this table on this machine.',
        ],
      },
      {
        title: `Reopen the ${records.length.toLocaleString('en')}-event conversation as the production host does (median ms over ${REOPEN_ROUNDS} rounds, a fresh store each time)`,
        columns: [
          'events after the snapshot',
          'snapshot (MB)',
          'open: snapshot + tail (ms wall)',
          'loop + projection + pairing (ms wall)',
          'total (ms wall)',
          'total (ms CPU)',
          'taking the snapshot (ms wall, once)',
        ],
        rows: reopen.map((r) => [
          r.tail === undefined ? 'no snapshot: the whole log' : r.tail.toLocaleString('en'),
          r.snapshotBytes === undefined ? '—' : round(r.snapshotBytes / 1e6, 1),
          round(r.ms.open.median, 1),
          round(r.ms.ready.median, 1),
          round(r.ms.total.median, 1),
          round(r.ms.cpu.median, 1),
          r.takeMs === undefined ? '—' : round(r.takeMs, 1),
        ]),
        notes: [
          verdict(
            halfInterval.restored && halfInterval.ms.cpu.median <= REOPEN_TARGET_MS,
            `reopen ≤ ${REOPEN_TARGET_MS} ms (CPU) with the snapshot half an interval behind (measured ${round(halfInterval.ms.cpu.median, 1)} ms CPU, ${round(halfInterval.ms.total.median, 1)} ms wall; with the snapshot at the end ${round(reopen[0]!.ms.cpu.median, 1)} ms CPU)`,
          ),
          'open: the stored snapshot read and verified (digest, format, catalogue, the event it was taken after), the events after it read and decoded, the log resumed (its prefix is read on demand); then a loop built over it and its projection folded and pairing-checked — the next request can be built. The conversation is uncompacted, so its projection (every message of every turn) is most of the snapshot.',
          'With `snapshots.every` (default 10,000) a reopen finds between 0 and every − 1 events after the latest snapshot; decoding them is most of the time beyond the snapshot itself.',
        ],
      },
      {
        title: `Open a ${records.length.toLocaleString('en')}-event conversation (median ms over ${OPEN_ROUNDS} rounds)`,
        columns: ['store', ...phases.map((p) => `${p} (ms)`), 'messages projected'],
        rows: contenders.map((c) => [c.name, ...phases.map((p) => round(summarize(open.get(c.name)![p]).median, 1)), messages]),
        notes: [
          'read: all records from the store; decode: every record checked against its schema and frozen; build log: the EventLog with its position index; project: the history the next request would send (one compaction-free fold).',
        ],
      },
    ];
    writeResults('stores', 'Append throughput and open-replay-project time of a long conversation, per store, interleaved.', tables, {
      events: records.length,
      batches: steps.length,
      appendEventsPerSecond: Object.fromEntries(contenders.map((c) => [c.name, summarize(append.get(c.name)!)])),
      openMs: Object.fromEntries(contenders.map((c) => [c.name, Object.fromEntries(phases.map((p) => [p, summarize(open.get(c.name)![p])]))])),
      sqliteByBatchSize: bySize.map((b) => ({ size: b.size, eventsPerSecond: Math.round(b.eventsPerSecond) })),
      groupCommit: groups,
      reopenFromSnapshot: reopen,
      postgres: pg.skipped ? { skipped: pg.skipped } : { ran: true },
      targets: {
        sqliteAppendEventsPerSecond: SQLITE_TARGET,
        met: sqliteRate >= SQLITE_TARGET,
        groupCommit: { conversations: JUDGED_CONVERSATIONS, eventsPerCpuSecond: GROUP_TARGET, met: judged.store.cpu.median >= GROUP_TARGET },
        reopenMs: { target: REOPEN_TARGET_MS, tail: halfInterval.tail, met: halfInterval.restored && halfInterval.ms.cpu.median <= REOPEN_TARGET_MS },
      },
    });
  } finally {
    for (const c of contenders) await c.close().catch((error: unknown) => process.stderr.write(`closing ${c.name}: ${(error as Error).message}\n`));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
