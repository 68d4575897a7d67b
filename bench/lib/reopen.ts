/**
 * Reopening a long conversation from SQLite the way the production host does
 * (host/snapshots.ts `openLog`): the latest snapshot of derived state and the
 * events after it — or, without a snapshot, every event. Measured to the point
 * where the next request can be built: the log open, a loop over it, its
 * projection folded and its pairing checked.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { encodeSnapshot, openLog } from '../../src/host/snapshots.ts';
import { systemClock } from '../../src/kernel/clock.ts';
import { decodeRecords } from '../../src/kernel/log/decode.ts';
import type { EventRecord } from '../../src/kernel/log/envelope.ts';
import { EventLog } from '../../src/kernel/log/event-log.ts';
import { loopDeps } from '../../src/kernel/loop/deps.ts';
import { AgentLoop } from '../../src/kernel/loop/runner.ts';
import { snapshotOf } from '../../src/kernel/loop/snapshot.ts';
import { SqliteEventStore } from '../../src/stores/sqlite-store.ts';
import { BenchModel, createShared } from '../loop/loopgate.ts';
import { summarize, type Summary } from './stats.ts';

export interface ReopenCase {
  /** Events after the snapshot (undefined: no snapshot, the whole log is read). */
  readonly tail: number | undefined;
  readonly snapshotBytes: number | undefined;
  /** Taking and encoding the snapshot, once (ms): what the host pays every `snapshots.every` events. */
  readonly takeMs: number | undefined;
  /** Wall time of each phase, and CPU time (user + system) of the whole reopen. */
  readonly ms: { readonly open: Summary; readonly ready: Summary; readonly total: Summary; readonly cpu: Summary };
  readonly restored: boolean;
}

const CONVERSATION = 'bench-reopen';
const shared = createShared();
const loopOver = (log: EventLog) => new AgentLoop(loopDeps({ log, model: new BenchModel(), tools: shared.tools, prompt: shared.prompt, clock: systemClock }));

/** A store holding `records`, with a snapshot after `records.length - tail` events (none when `tail` is undefined). */
async function storeWith(path: string, records: readonly EventRecord[], tail: number | undefined): Promise<{ bytes?: number; takeMs?: number }> {
  const store = new SqliteEventStore(path);
  const at = tail === undefined ? undefined : records.length - tail;
  let info: { bytes?: number; takeMs?: number } = {};
  try {
    const cuts = [...new Set([...Array.from({ length: Math.ceil(records.length / 10_000) }, (_, i) => i * 10_000), ...(at !== undefined ? [at] : [])])]
      .filter((c) => c > 0 && c < records.length)
      .sort((a, b) => a - b);
    let from = 0;
    for (const cut of [...cuts, records.length]) {
      let snapshot;
      if (cut === at) {
        const log = new EventLog(systemClock, decodeRecords(records.slice(0, at), 'bench'));
        const loop = loopOver(log);
        loop.projection.current();
        const t0 = performance.now();
        snapshot = encodeSnapshot(snapshotOf(loop, log));
        info = { bytes: snapshot.body.length, takeMs: performance.now() - t0 };
      }
      await store.append(CONVERSATION, records.slice(from, cut), snapshot ? { snapshot } : undefined);
      from = cut;
    }
  } finally {
    await store.close();
  }
  return info;
}

/** Interleaved rounds over the cases; each round opens every case's file once with a fresh store. */
export async function measureReopen(
  dir: string,
  records: readonly EventRecord[],
  tails: readonly (number | undefined)[],
  rounds: number,
): Promise<ReopenCase[]> {
  const files = tails.map((tail, i) => ({ tail, path: join(dir, `reopen-${i}.db`) }));
  const built: { bytes?: number; takeMs?: number }[] = [];
  for (const f of files) built.push(await storeWith(f.path, records, f.tail));
  const samples = files.map(() => ({ open: [] as number[], ready: [] as number[], total: [] as number[], cpu: [] as number[], restored: false }));
  try {
    for (let r = 0; r < rounds + 1; r++) {
      for (let k = 0; k < files.length; k++) {
        const i = (r + k) % files.length;
        const store = new SqliteEventStore(files[i]!.path);
        try {
          const cpu0 = process.cpuUsage();
          const t0 = performance.now();
          const opened = await openLog(store, CONVERSATION, systemClock);
          const t1 = performance.now();
          const loop = loopOver(opened.log);
          loop.projection.pairingViolation(); // folds the projection and checks it: the next request can be built
          const t2 = performance.now();
          const cpu = process.cpuUsage(cpu0);
          if (opened.log.length !== records.length) throw new Error(`bench: reopened ${opened.log.length} events, expected ${records.length}`);
          if (r === 0) continue; // warm-up round
          samples[i]!.open.push(t1 - t0);
          samples[i]!.ready.push(t2 - t1);
          samples[i]!.total.push(t2 - t0);
          samples[i]!.cpu.push((cpu.user + cpu.system) / 1000);
          samples[i]!.restored = opened.restoredFrom !== undefined;
        } finally {
          await store.close();
        }
      }
    }
  } finally {
    for (const f of files) for (const suffix of ['', '-wal', '-shm']) rmSync(`${f.path}${suffix}`, { force: true });
  }
  return files.map((f, i) => ({
    tail: f.tail,
    snapshotBytes: built[i]!.bytes,
    takeMs: built[i]!.takeMs,
    ms: { open: summarize(samples[i]!.open), ready: summarize(samples[i]!.ready), total: summarize(samples[i]!.total), cpu: summarize(samples[i]!.cpu) },
    restored: samples[i]!.restored,
  }));
}
