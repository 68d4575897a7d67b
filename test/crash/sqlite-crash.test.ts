/**
 * SIGKILL crash test for the SQLite store and crash recovery.
 *
 * A child process (crash-child.ts) writes realistic turns into one conversation,
 * one batch per step, and prints the last committed seq after every flush. The
 * parent kills it with SIGKILL at a random moment (seeded, so the *delays* are
 * reproducible; where exactly a kill lands still depends on the machine), then
 * checks what a restarted host would find:
 * - every stored record decodes; seqs are gapless from 0;
 * - nothing the child reported committed is missing, and nothing stored before is changed;
 * - recovery closes any open turn as interrupted, with every tool call paired;
 * - the next child's own recovery writes exactly what the parent predicted.
 * The next child then starts from that state, so recovery runs against real
 * crash leftovers again and again, including kills that land inside recovery.
 *
 * Reproduce a run with LOOPGATE_CRASH_SEED=<seed> (printed on failure).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { recoverConversation, type RecoveryReport } from '../../src/host/recovery.ts';
import { decodeRecords } from '../../src/kernel/log/decode.ts';
import { isKnown, toRecord, type AnyEvent, type EventRecord } from '../../src/kernel/log/envelope.ts';
import { EventLog } from '../../src/kernel/log/event-log.ts';
import { checkToolPairing } from '../../src/kernel/projection/invariants/tool-pairing.ts';
import { project } from '../../src/kernel/projection/projection.ts';
import { SqliteEventStore } from '../../src/stores/sqlite-store.ts';

const LANES = 2;
const KILLS_PER_LANE = 30;
/** A turn takes well under a millisecond, so delays up to this land anywhere in a turn's phase. */
const MAX_DELAY_MS = 12;
const CONVERSATION = 'c1';
const SEED = Number(process.env.LOOPGATE_CRASH_SEED ?? 20_240_611);
const child = fileURLToPath(new URL('./crash-child.ts', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'loopgate-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** mulberry32: a small seeded PRNG, so the kill schedule is reproducible. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface ChildRun {
  readonly lastCommitted: number | undefined;
  /** The append in progress when the child died (`appending` seen, no `committed` after it). */
  readonly inFlight: { readonly first: number; readonly count: number } | undefined;
  readonly readyAt: number | undefined;
  readonly signal: NodeJS.Signals | null;
  readonly code: number | null;
  readonly stderr: string;
}

/** Runs the child and SIGKILLs it `delayMs` after it reports ready. */
function runAndKill(dbPath: string, delayMs: number): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child, dbPath, CONVERSATION], { stdio: ['ignore', 'pipe', 'pipe'] });
    let lastCommitted: number | undefined;
    let inFlight: { first: number; count: number } | undefined;
    let readyAt: number | undefined;
    let buffered = '';
    let stderr = '';
    // A child that never becomes ready is a failure, not a hang.
    const guard = setTimeout(() => proc.kill('SIGKILL'), 20_000);
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        const [word, n, count] = line.split(' ');
        if (word === 'appending') inFlight = { first: Number(n), count: Number(count) };
        else if (word === 'committed') {
          lastCommitted = Number(n);
          inFlight = undefined;
        } else if (word === 'ready' && readyAt === undefined) {
          readyAt = Number(n);
          setTimeout(() => proc.kill('SIGKILL'), delayMs);
        }
      }
    });
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    proc.on('error', reject);
    proc.on('close', (code, signal) => {
      clearTimeout(guard);
      resolve({ lastCommitted, inFlight, readyAt, signal, code, stderr });
    });
  });
}

function callIdsOf(events: readonly AnyEvent[]): string[] {
  const ids: string[] = [];
  for (const event of events) {
    if (!isKnown(event) || event.type !== 'assistant.message') continue;
    for (const block of event.payload.content) if (block.type === 'tool_call') ids.push(block.id);
  }
  return ids;
}

/** What a recovery appended, without times (the child's run happens later). */
function shape(events: ReadonlyArray<{ readonly type: string; readonly payload: unknown }>): unknown[] {
  return events.map((e) => ({ type: e.type, payload: e.payload }));
}

type Tally = Record<'recovered' | 'unknownCalls' | 'notRunCalls' | 'returned' | 'killedMidBatch' | 'killedAfterCommit' | 'childRecoveries' | 'events', number>;

/** One database, killed `kills` times in a row; each kill's leftovers are the next child's starting point. */
async function killRepeatedly(lane: number, kills: number): Promise<Tally> {
  const dbPath = join(dir, `crash-${lane}.db`);
  const seed = SEED + lane;
  const random = prng(seed);
  const clock = { now: () => 0 };
  // What the parent has verified so far: raw records (as JSON, to detect rewrites) and their decoded events.
  const seen: string[] = [];
  const decoded: AnyEvent[] = [];
  let predicted: unknown[] | undefined;
  const tally: Tally = { recovered: 0, unknownCalls: 0, notRunCalls: 0, returned: 0, killedMidBatch: 0, killedAfterCommit: 0, childRecoveries: 0, events: 0 };

  for (let kill = 0; kill < kills; kill++) {
    // A quarter of the kills come right after ready (inside the first batches), the rest spread over many turns.
    const delayMs = random() < 0.25 ? 0 : Math.floor(random() * MAX_DELAY_MS);
    const run = await runAndKill(dbPath, delayMs);
    const where = `lane ${lane} kill ${kill} (LOOPGATE_CRASH_SEED=${SEED}, delay ${delayMs} ms)`;
    if (run.signal !== 'SIGKILL') {
      throw new Error(`${where}: the child was not killed but exited with code ${run.code}:\n${run.stderr}`);
    }
    expect(run.readyAt, `${where}: never reported ready`).toBeDefined();

    const store = new SqliteEventStore(dbPath);
    let records: EventRecord[];
    try {
      records = await store.read(CONVERSATION);
    } finally {
      await store.close();
    }

    // Nothing committed is lost; nothing stored earlier changed.
    if (run.lastCommitted !== undefined) {
      expect(records.length, `${where}: committed seq ${run.lastCommitted} is missing`).toBeGreaterThanOrEqual(run.lastCommitted + 1);
    }
    expect(records.length, `${where}: the store shrank`).toBeGreaterThanOrEqual(seen.length);
    for (let i = 0; i < seen.length; i++) {
      if (JSON.stringify(records[i]) !== seen[i]) throw new Error(`${where}: stored record seq ${i} changed after it was committed`);
    }
    if (run.inFlight !== undefined) {
      // Killed inside an append: the batch is stored whole or not at all.
      const { first, count } = run.inFlight;
      expect([first, first + count], `${where}: a batch of ${count} from seq ${first} was stored partly`).toContain(records.length);
      if (records.length === first) tally.killedMidBatch++;
      else tally.killedAfterCommit++;
    }

    // Everything decodes, gapless from 0 (decodeRecords checks each seq).
    const fresh = records.slice(seen.length);
    decoded.push(...decodeRecords(fresh, `${where} store`, seen.length));
    for (const record of fresh) seen.push(JSON.stringify(record));

    // The child's recovery (when it got as far as flushing it) wrote exactly what the parent predicted.
    if (predicted !== undefined && fresh.length > 0) {
      expect(shape(fresh.slice(0, predicted.length)), `${where}: the child's recovery differs from the prediction`).toEqual(predicted);
      tally.childRecoveries++;
      predicted = undefined;
    }

    // Recover as a restarting host would (in memory: the next child does it for real).
    const log = new EventLog(clock, decoded);
    // write_note is STATEFUL: a call without a durable start record never ran (NOT_RUN).
    const report: RecoveryReport = recoverConversation(log, { sideEffectOf: () => 'STATEFUL' });
    expect(log.positions.openTurn, `${where}: a turn is still open after recovery`).toBeUndefined();
    for (const id of callIdsOf(log.events)) {
      expect(log.positions.call(id)!.result, `${where}: tool call ${id} has no result`).toBeDefined();
    }
    expect(checkToolPairing(project(log.events)), `${where}: the recovered history pairs calls wrongly`).toBeUndefined();
    expect(recoverConversation(log).recovered, `${where}: recovery is not idempotent`).toBe(false);
    if (report.recovered) {
      const added = log.readFrom(report.fromSeq!);
      expect(added.at(-1)!.payload, where).toMatchObject({ turn: report.turn, outcome: { kind: 'interrupted' }, recovered: true });
      // It round-trips through the store format, as the child's flush will.
      decodeRecords(added.map(toRecord), `${where} recovery`, report.fromSeq!);
      predicted = shape(added);
      tally.recovered++;
      if (report.unknownCallIds.length > 0) tally.unknownCalls++;
      if (report.notRunCallIds.length > 0) tally.notRunCalls++;
      if (report.returnedIds.length > 0) tally.returned++;
    }
  }
  tally.events = decoded.length;
  return tally;
}

describe('SQLite store under SIGKILL', () => {
  it(`loses no committed event and recovers every interrupted turn across ${LANES * KILLS_PER_LANE} kills (seed ${SEED})`, { timeout: 180_000 }, async () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(24); // runs the .ts child directly
    // Independent databases in parallel: the kill count the test needs, in half the wall time.
    const lanes = await Promise.all(Array.from({ length: LANES }, (_, lane) => killRepeatedly(lane, KILLS_PER_LANE)));
    const total = lanes.reduce((sum, t) => {
      for (const key of Object.keys(sum) as Array<keyof Tally>) sum[key] += t[key];
      return sum;
    });
    const why = JSON.stringify(total);

    // The test must not pass vacuously: kills landed mid-turn, mid-tool, inside appends,
    // and between taking a message and the reply; the children's recoveries were checked.
    expect(total.recovered, why).toBeGreaterThanOrEqual((LANES * KILLS_PER_LANE) / 4);
    expect(total.unknownCalls, why).toBeGreaterThan(0);
    expect(total.returned, why).toBeGreaterThan(0);
    expect(total.killedMidBatch, why).toBeGreaterThan(0);
    expect(total.childRecoveries, why).toBeGreaterThan(0);
    expect(total.events, why).toBeGreaterThan(LANES * KILLS_PER_LANE * 10);
  });
});
