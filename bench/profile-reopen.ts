/**
 * Reopens a 100,000-event SQLite conversation from a snapshot `tail` events behind,
 * in a loop, as bench/lib/reopen.ts measures it (CPU and wall: min, p25, median;
 * PIECES=1 also times the parts of `openLog` one by one) — for profiling:
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/profile-reopen.ts [rounds] [tail]
 *   node bench/lib/cpuprofile-top.ts /tmp/prof/<file>.cpuprofile
 * The recorded conversation is cached in $TMPDIR/loopgate-reopen-records.json.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeSnapshot, encodeSnapshot, openLog } from '../src/host/snapshots.ts';
import { systemClock } from '../src/kernel/clock.ts';
import { decodeRecords } from '../src/kernel/log/decode.ts';
import { toRecord, type EventRecord } from '../src/kernel/log/envelope.ts';
import { EventLog } from '../src/kernel/log/event-log.ts';
import { loopDeps } from '../src/kernel/loop/deps.ts';
import { AgentLoop } from '../src/kernel/loop/runner.ts';
import { snapshotOf } from '../src/kernel/loop/snapshot.ts';
import { SqliteEventStore } from '../src/stores/sqlite-store.ts';
import { BenchModel, createConversation, createShared } from './loop/loopgate.ts';

const rounds = Number(process.argv[2] ?? 20);
const tail = Number(process.argv[3] ?? 5_000);
const EVENTS = 100_000;
const CONVERSATION = 'bench-reopen';
const cache = join(tmpdir(), 'loopgate-reopen-records.json');

async function records(): Promise<EventRecord[]> {
  if (existsSync(cache)) return JSON.parse(readFileSync(cache, 'utf8')) as EventRecord[];
  const conversation = createConversation(createShared(), { id: CONVERSATION });
  while (conversation.log.length < EVENTS) await conversation.turn();
  const events = conversation.log.events;
  let last = Math.min(EVENTS, events.length) - 1;
  while (events[last]!.type !== 'turn.closed') last--;
  const out = events.slice(0, last + 1).map(toRecord);
  writeFileSync(cache, JSON.stringify(out));
  return out;
}

const shared = createShared();
const loopOver = (log: EventLog) => new AgentLoop(loopDeps({ log, model: new BenchModel(), tools: shared.tools, prompt: shared.prompt, clock: systemClock }));

const all = await records();
const dir = mkdtempSync(join(tmpdir(), 'loopgate-reopen-'));
const path = join(dir, 'events.db');
const at = all.length - tail;
{
  const store = new SqliteEventStore(path);
  const log = new EventLog(systemClock, decodeRecords(all.slice(0, at), 'profile'));
  const loop = loopOver(log);
  loop.projection.current();
  const snapshot = encodeSnapshot(snapshotOf(loop, log));
  for (let i = 0; i < at; i += 10_000) {
    const end = Math.min(i + 10_000, at);
    await store.append(CONVERSATION, all.slice(i, end), end === at ? { snapshot } : undefined);
  }
  await store.append(CONVERSATION, all.slice(at));
  process.stdout.write(`${all.length} events, snapshot at ${at} (${(snapshot.body.length / 1e6).toFixed(2)} MB)\n`);
  await store.close();
}

const phases: Record<string, number[]> = {};
const note = (name: string, ms: number) => (phases[name] ??= []).push(ms);
const pieces = process.env.PIECES === '1';
for (let r = 0; r < rounds; r++) {
  const store = new SqliteEventStore(path);
  if (pieces) {
    // The pieces of openLog, one at a time, for the breakdown (wall ms).
    let t = performance.now();
    const stored = (await store.readSnapshot!(CONVERSATION))!;
    note('read snapshot row', performance.now() - t);
    t = performance.now();
    decodeSnapshot(stored);
    note('digest + JSON.parse', performance.now() - t);
    t = performance.now();
    const rows = await store.read(CONVERSATION, at - 1);
    note('read tail rows', performance.now() - t);
    t = performance.now();
    decodeRecords(rows, 'profile', at - 1);
    note('decode tail', performance.now() - t);
  }
  // As the bench measures it: openLog, a loop over the log, its projection folded and pairing-checked.
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const opened = await openLog(store, CONVERSATION, systemClock);
  const t1 = performance.now();
  const loop = loopOver(opened.log);
  loop.projection.pairingViolation();
  const t2 = performance.now();
  const cpu = process.cpuUsage(cpu0);
  note('openLog (wall)', t1 - t0);
  note('loop + projection + pairing (wall)', t2 - t1);
  note('total (CPU)', (cpu.user + cpu.system) / 1000);
  if (opened.restoredFrom === undefined) throw new Error(`not restored: ${opened.rejected}`);
  await store.close();
}
for (const [name, ms] of Object.entries(phases)) {
  const s = ms.slice(1).sort((a, b) => a - b);
  const q = (p: number) => s[Math.floor(p * (s.length - 1))]!.toFixed(1);
  process.stdout.write(`${name.padEnd(36)} min ${q(0)}  p25 ${q(0.25)}  median ${q(0.5)} ms\n`);
}
rmSync(dir, { recursive: true, force: true });
