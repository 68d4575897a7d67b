/**
 * The physical floor of the production host's SQLite writes, next to the host, in
 * one process, alternated (CPU µs per host step, medians of samples):
 *   node bench/profile-host-floor.ts [runs per sample] [samples]
 *
 * The raw contenders replay, with bare prepared `node:sqlite` statements and no
 * JavaScript around them, the rows one host run stores (captured from the host's
 * own first conversation: 69 rows in 4 transactions, one per barrier) into a file
 * of the same schema (WAL, synchronous=NORMAL):
 * - "host's statements": what `SqliteEventStore` runs per host run — the two reads
 *   when the conversation opens, then per transaction BEGIN IMMEDIATE, the writer
 *   claim's fencing SELECT, MAX(seq), the rows, COMMIT;
 * - "rows, 4 transactions": only BEGIN, the rows and COMMIT;
 * - "rows, 1 transaction": the same rows in one transaction (what three of the
 *   four barriers cost);
 * - "4 empty transactions": BEGIN IMMEDIATE + COMMIT, nothing written;
 * - "rows, integer conversation key": the rows keyed by an integer instead of the
 *   conversation's text (a schema this store does not have: what the key costs).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryEventStore } from '../src/stores/memory-store.ts';
import { loopgateHostContender } from './loop/loopgate-host.ts';
import { median } from './lib/stats.ts';

const runs = Number(process.argv[2] ?? 200);
const samples = Number(process.argv[3] ?? 15);

type Row = { seq: number; type: string; v: number; at: number; ignorable: number; sources: string | null; payload: string };
const host = loopgateHostContender();
const transactionsBefore = host.store.commits.groups;
const steps = await host.run();
const transactions = host.store.commits.groups - transactionsBefore;
const dirs: string[] = [];
const captured = new DatabaseSync(host.store.path);
const rows = captured.prepare("SELECT seq, type, v, at, ignorable, sources, payload FROM events WHERE conversation = 'bench-0' ORDER BY seq").all() as Row[];
captured.close();
// The barriers of one run: the message, the claim, the turn's steps, the close.
const groups = [rows.slice(0, 1), rows.slice(1, 3), rows.slice(3, rows.length - 1), rows.slice(rows.length - 1)];
if (transactions !== groups.length || rows[0]?.type !== 'inbox.received' || rows[rows.length - 1]?.type !== 'turn.closed') {
  throw new Error(
    `profile-host-floor: expected one host run to store inbox.received … turn.closed in 4 transactions, got ${rows.length} rows in ${transactions}`,
  );
}

function rawFile(integerKey: boolean): { db: DatabaseSync; st: Record<string, StatementSync> } {
  const dir = mkdtempSync(join(tmpdir(), 'loopgate-bench-floor-'));
  dirs.push(dir);
  const db = new DatabaseSync(join(dir, 'events.db'));
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec(`
    CREATE TABLE events (conversation ${integerKey ? 'INTEGER' : 'TEXT'} NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, v INTEGER NOT NULL,
      at REAL NOT NULL, ignorable INTEGER NOT NULL, sources TEXT NULL, payload TEXT NOT NULL, PRIMARY KEY (conversation, seq));
    CREATE TABLE snapshots (conversation TEXT NOT NULL PRIMARY KEY, up_to INTEGER NOT NULL, digest TEXT NOT NULL, body TEXT NOT NULL);
    CREATE TABLE writer_claim (id INTEGER PRIMARY KEY CHECK (id = 1), token TEXT NOT NULL, pid INTEGER NOT NULL, host TEXT NOT NULL,
      claimed_at REAL NOT NULL, heartbeat_at REAL NOT NULL);
    INSERT INTO writer_claim VALUES (1, 'token', 1, 'host', 0, 0);
  `);
  const read = db.prepare('SELECT seq, type, v, at, ignorable, sources, payload FROM events WHERE conversation = ? AND seq >= ? ORDER BY seq');
  read.setReturnArrays(true);
  return {
    db,
    st: {
      insert: db.prepare('INSERT INTO events (conversation, seq, type, v, at, ignorable, sources, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
      maxSeq: db.prepare('SELECT MAX(seq) AS m FROM events WHERE conversation = ?'),
      claim: db.prepare('SELECT token, pid, host, claimed_at, heartbeat_at FROM writer_claim WHERE id = 1'),
      snapshot: db.prepare('SELECT up_to, digest, body FROM snapshots WHERE conversation = ?'),
      read,
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
    },
  };
}

function raw(name: string, body: (st: Record<string, StatementSync>, id: string | number) => void, integerKey = false) {
  const { db, st } = rawFile(integerKey);
  let n = 0;
  return {
    name,
    async run(): Promise<number> {
      body(st, integerKey ? n++ : `bench-${n++}`);
      return steps;
    },
    async close(): Promise<void> {
      db.close();
    },
  };
}

const insert = (st: Record<string, StatementSync>, id: string | number, r: Row) =>
  st.insert!.run(id, r.seq, r.type, r.v, r.at, r.ignorable, r.sources, r.payload);
const contenders = [
  { ...loopgateHostContender(() => new MemoryEventStore()), name: 'AgentHost + memory store' },
  { ...host, name: 'AgentHost + SQLite' },
  raw("raw: the host's statements", (st, id) => {
    st.snapshot!.get(id);
    st.read!.all(id, 0);
    for (const g of groups) {
      st.begin!.run();
      st.claim!.get();
      st.maxSeq!.get(id);
      for (const r of g) insert(st, id, r);
      st.commit!.run();
    }
  }),
  raw('raw: rows, 4 transactions', (st, id) => {
    for (const g of groups) {
      st.begin!.run();
      for (const r of g) insert(st, id, r);
      st.commit!.run();
    }
  }),
  raw('raw: rows, 1 transaction', (st, id) => {
    st.begin!.run();
    for (const r of rows) insert(st, id, r);
    st.commit!.run();
  }),
  raw('raw: 4 empty transactions', (st) => {
    for (let i = 0; i < groups.length; i++) {
      st.begin!.run();
      st.commit!.run();
    }
  }),
  raw(
    'raw: rows, integer conversation key',
    (st, id) => {
      for (const g of groups) {
        st.begin!.run();
        for (const r of g) insert(st, id, r);
        st.commit!.run();
      }
    },
    true,
  ),
];
const cpu = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
for (let s = 0; s < samples + 3; s++) {
  // Alternate the order: no contender always runs right after the same one.
  for (const c of s % 2 ? contenders : [...contenders].reverse()) {
    const before = process.cpuUsage();
    let done = 0;
    for (let i = 0; i < runs; i++) done += await c.run();
    const used = process.cpuUsage(before);
    if (s >= 3) cpu.get(c.name)!.push((used.user + used.system) / done);
  }
}
process.stdout.write(`${rows.length} rows in ${groups.length} transactions per run (${groups.map((g) => g.length).join(' + ')}), ${steps} steps\n`);
for (const c of contenders) process.stdout.write(`${c.name.padEnd(38)} CPU µs/step median ${median(cpu.get(c.name)!).toFixed(1)}\n`);
for (const c of contenders) await c.close();
for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
