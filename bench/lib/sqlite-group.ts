/**
 * SQLite with many conversations writing at once: the store's group commit (each
 * conversation appends its step's batch, all in flight together, one transaction
 * per group) against the raw `node:sqlite` limit for the same rows and the same
 * transactions (prepared INSERTs of pre-serialized rows between BEGIN IMMEDIATE and
 * COMMIT, nothing checked). Rounds interleave the two; figures are medians of
 * events per CPU-second and per wall-second.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { EventRecord } from '../../src/kernel/log/envelope.ts';
import { SqliteEventStore } from '../../src/stores/sqlite-store.ts';
import { summarize, type Summary } from './stats.ts';

export interface GroupRate {
  readonly conversations: number;
  readonly eventsPerGroup: number;
  readonly store: { readonly cpu: Summary; readonly wall: Summary };
  readonly raw: { readonly cpu: Summary; readonly wall: Summary };
}

/** Per conversation, its step batches in order (seqs from 0), cut from one recorded conversation. */
function conversationsOf(steps: readonly (readonly EventRecord[])[], count: number, perConversation: number): EventRecord[][][] {
  const out: EventRecord[][][] = [];
  for (let c = 0; c < count; c++) {
    let seq = 0;
    const batches: EventRecord[][] = [];
    for (let i = 0; i < perConversation; i++) {
      const step = steps[(c * 7 + i) % steps.length]!;
      batches.push(step.map((r) => ({ ...r, seq: seq++ })));
    }
    out.push(batches);
  }
  return out;
}

function rawDatabase(path: string): { db: DatabaseSync; write: (group: readonly { id: string; rows: readonly unknown[][] }[]) => void } {
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec(`CREATE TABLE events (conversation TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, v INTEGER NOT NULL, at REAL NOT NULL,
    ignorable INTEGER NOT NULL, sources TEXT NULL, payload TEXT NOT NULL, PRIMARY KEY (conversation, seq))`);
  const insert = db.prepare('INSERT INTO events (conversation, seq, type, v, at, ignorable, sources, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  return {
    db,
    write: (group) => {
      begin.run();
      for (const { id, rows } of group) for (const r of rows) insert.run(id, ...(r as [number, string, number, number, number, string | null, string]));
      commit.run();
    },
  };
}

const cpuNow = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/**
 * `conversations` conversations, each appending `rounds` step batches; a round is
 * one batch of every conversation, all appended at once (one group). Chunks of
 * `roundsPerSample` rounds alternate between the store and the raw writer.
 */
export async function measureGroups(
  dir: string,
  steps: readonly (readonly EventRecord[])[],
  conversations: number,
  rounds: number,
  roundsPerSample: number,
): Promise<GroupRate> {
  const data = conversationsOf(steps, conversations, rounds);
  const ids = data.map((_, c) => `conversation-${c}`);
  const storePath = join(dir, `group-${conversations}.db`);
  const rawPath = join(dir, `raw-${conversations}.db`);
  const store = new SqliteEventStore(storePath);
  const raw = rawDatabase(rawPath);
  // The raw writer gets its rows serialized in advance: the limit is the database's, not JSON's.
  const rawRows = data.map((batches) =>
    batches.map((batch) =>
      batch.map((r) => [r.seq, r.type, r.v, r.at, r.ignorable ? 1 : 0, r.sources ? JSON.stringify(r.sources) : null, JSON.stringify(r.payload)]),
    ),
  );
  const samples = { store: { cpu: [] as number[], wall: [] as number[] }, raw: { cpu: [] as number[], wall: [] as number[] } };
  let storeRound = 0;
  let rawRound = 0;
  let k = 0;
  try {
    while (storeRound < rounds || rawRound < rounds) {
      const order = k++ % 2 === 0 ? (['store', 'raw'] as const) : (['raw', 'store'] as const);
      for (const who of order) {
        const from = who === 'store' ? storeRound : rawRound;
        const to = Math.min(rounds, from + roundsPerSample);
        if (from >= to) continue;
        let events = 0;
        const cpu0 = cpuNow();
        const wall0 = process.hrtime.bigint();
        for (let r = from; r < to; r++) {
          if (who === 'store') {
            await Promise.all(data.map((batches, c) => store.append(ids[c]!, batches[r]!)));
            for (const batches of data) events += batches[r]!.length;
          } else {
            raw.write(rawRows.map((batches, c) => ({ id: ids[c]!, rows: batches[r]! })));
            for (const batches of rawRows) events += batches[r]!.length;
          }
        }
        const cpuSeconds = (cpuNow() - cpu0) / 1e6;
        const wallSeconds = Number(process.hrtime.bigint() - wall0) / 1e9;
        samples[who].cpu.push(events / cpuSeconds);
        samples[who].wall.push(events / wallSeconds);
        if (who === 'store') storeRound = to;
        else rawRound = to;
      }
    }
    for (const id of ids.slice(0, 3)) {
      const stored = await store.read(id);
      if (stored.length !== data[ids.indexOf(id)]!.flat().length) throw new Error(`bench: ${id} holds ${stored.length} events`);
    }
  } finally {
    await store.close();
    raw.db.close();
    for (const path of [storePath, rawPath]) for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
  }
  return {
    conversations,
    eventsPerGroup: Math.round(data.reduce((n, batches) => n + batches[0]!.length, 0)),
    store: { cpu: summarize(samples.store.cpu), wall: summarize(samples.store.wall) },
    raw: { cpu: summarize(samples.raw.cpu), wall: summarize(samples.raw.wall) },
  };
}
