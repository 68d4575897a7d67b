/**
 * Growth: does a step cost more as the conversation grows? The same 10-round tool
 * turn is run on top of histories of about 10, 100, 1,000, 10,000 and 100,000
 * events, each history holding one compaction (the first half of its closed turns
 * replaced by a summary, so the projection still grows with the history: some
 * 33,000 messages at 100,000 events). The session is warm, as a host keeps it
 * between turns: the log is open and its projection folded before the clock
 * starts. Lengths are interleaved per round. Target: flat — the 100,000-event
 * step within 1.2× of the 10-event step (CPU medians).
 *
 * Also reported, once per length: what the compaction itself cost (it measures
 * the projection with the summary in place, O(history), and runs once).
 */
import type { AnyEvent } from '../src/kernel/log/envelope.ts';
import { toRecord } from '../src/kernel/log/envelope.ts';
import { applyCompaction } from '../src/kernel/loop/compaction.ts';
import { MemoryEventStore } from '../src/stores/memory-store.ts';
import { createConversation, createShared, type Shared } from './loop/loopgate.ts';
import { STEPS_PER_RUN } from './loop/scenario.ts';
import { median, round, summarize } from './lib/stats.ts';
import { verdict, writeResults } from './lib/results.ts';
import { timed, type Samples } from './lib/interleave.ts';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
/** A full collection: what setting up the round's sessions left is collected before the clock starts. */
const collect = runInNewContext('gc') as () => void;

const LENGTHS = [10, 100, 1_000, 10_000, 100_000] as const;
const TARGET_RATIO = 1.2;
/**
 * From this length on, a round's sessions are kept for the next rounds instead of
 * set up afresh: setting one up copies the whole history into a new store, and a
 * turn timed right after that pays for collecting what the copy promoted. Each
 * turn adds some 69 events: over all rounds, under a fifth of a 10,000-event
 * history, 2% of a 100,000-event one.
 */
const REUSE_FROM = 10_000;
const QUICK = process.env.LOOPGATE_BENCH_QUICK === '1';
const ROUNDS = QUICK ? 5 : 25;
const WARMUP_ROUNDS = 3;
const TURNS_PER_SAMPLE = 4;
/**
 * After the forced full collection, the clock waits this long before anything runs:
 * V8 sweeps the collected heap on background threads, and their CPU time, which
 * grows with the heap (some 200 MB at 100,000 events), would otherwise be billed
 * to the turns timed next. A long-running host never forces a full collection.
 */
const SETTLE_MS = 30;

interface History {
  readonly target: number;
  readonly events: readonly AnyEvent[];
  readonly compaction: { readonly from: number; readonly to: number; readonly ms: number };
}

/** Runs real turns until the log holds about `target` events, compacting half way. */
async function buildHistory(shared: Shared, target: number): Promise<History> {
  // Tool turns (69 events) while they fit, then reply-only turns (7 events).
  const big = createConversation(shared, { id: `h${target}`, idPrefix: `h${target}_` });
  const small = (log: typeof big.log) =>
    createConversation(shared, { id: `h${target}`, store: big.store, existing: log.events, rounds: 0, idPrefix: `h${target}s_` });
  let conversation = big;
  let compaction: History['compaction'] | undefined;
  const compactHalf = async () => {
    const log = conversation.log;
    const closed = log.events.filter((e) => e.type === 'turn.closed').map((e) => e.seq);
    const to = closed[Math.floor((closed.length - 1) / 2)]!;
    const from = log.events.findIndex((e) => e.type === 'turn.opened');
    conversation.loop.projection.current();
    const start = process.hrtime.bigint();
    const report = await applyCompaction(
      log,
      conversation.loop.projection,
      { compact: async () => ({ from, to, summary: 'Sums done.' }) },
      new AbortController().signal,
    );
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (!report.shrank) throw new Error(`bench: the growth history's compaction did not apply: ${report.detail}`);
    await conversation.persist();
    compaction = { from, to, ms: round(ms) };
  };
  for (;;) {
    const length = conversation.log.length;
    if (compaction === undefined && length >= target / 2 && length > 0) await compactHalf();
    if (conversation.log.length >= target) break;
    if (conversation === big && target - length < 69 + 10) conversation = small(conversation.log);
    const result = await conversation.turn();
    if (result.outcome.kind !== 'replied') throw new Error(`bench: history turn ended ${JSON.stringify(result.outcome)}`);
  }
  if (!compaction) await compactHalf();
  return { target, events: conversation.log.events.slice(), compaction: compaction! };
}

/** One warm session on `history`, ready to run a turn (store filled, projection folded). */
async function warmSession(shared: Shared, history: History, n: number) {
  const id = `g${history.target}-${n}`;
  const store = new MemoryEventStore();
  await store.append(id, history.events.map(toRecord));
  const conversation = createConversation(shared, { id, store, existing: history.events, idPrefix: `${id}_` });
  // Warm: as if this session had served the previous turn, the projection is folded
  // and its pairing checked (what the loop does before every request).
  conversation.loop.projection.pairingViolation();
  return conversation;
}

async function main(): Promise<void> {
  const shared = createShared();
  const histories: History[] = [];
  for (const target of LENGTHS) histories.push(await buildHistory(shared, target));

  const samples = new Map<number, Samples>(LENGTHS.map((l) => [l, { wall: [], cpu: [] }]));
  let n = 0;
  const sessions = new Map<number, Awaited<ReturnType<typeof warmSession>>[]>();
  const spares = new Map<number, Awaited<ReturnType<typeof warmSession>>>();
  for (let r = 0; r < WARMUP_ROUNDS + ROUNDS; r++) {
    // All of the round's sessions first: setting one up copies its whole history
    // into a fresh store. The garbage that leaves is collected before the clock
    // starts, and the lengths then run in a rotated order.
    for (const history of histories) {
      if (history.target >= REUSE_FROM && sessions.has(history.target)) continue;
      const list = [];
      for (let t = 0; t < TURNS_PER_SAMPLE; t++) list.push(await warmSession(shared, history, n++));
      sessions.set(history.target, list);
    }
    // One untimed turn per length after the collection, on a session of its own: what
    // the collection left cold (caches, feedback) warms up again before the clock starts.
    // The spare sessions are set up before the collection too (kept, like the timed
    // ones, from REUSE_FROM on): setting one up copies its whole history, and a turn
    // timed after that copy would pay for collecting it.
    for (const history of histories) {
      if (history.target >= REUSE_FROM && spares.has(history.target)) continue;
      spares.set(history.target, await warmSession(shared, history, n++));
    }
    collect();
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    for (const history of histories) await spares.get(history.target)!.turn();
    for (let k = 0; k < histories.length; k++) {
      const history = histories[(r + k) % histories.length]!;
      const sample = await timed(async () => {
        let steps = 0;
        for (const session of sessions.get(history.target)!) {
          const result = await session.turn();
          if (result.outcome.kind !== 'replied') throw new Error(`bench: growth turn ended ${JSON.stringify(result.outcome)}`);
          steps += result.steps;
        }
        return steps;
      });
      if (r >= WARMUP_ROUNDS) {
        samples.get(history.target)!.wall.push(sample.wall);
        samples.get(history.target)!.cpu.push(sample.cpu);
      }
    }
  }

  const of = (length: number) => samples.get(length)!;
  const base = { wall: median(of(LENGTHS[0]).wall), cpu: median(of(LENGTHS[0]).cpu) };
  const rows = histories.map((h) => {
    const wall = summarize(of(h.target).wall);
    const cpu = summarize(of(h.target).cpu);
    return [
      h.target.toLocaleString('en'),
      h.events.length.toLocaleString('en'),
      wall.median,
      `${wall.p10} – ${wall.p90}`,
      `${round(wall.median / base.wall, 2)}×`,
      cpu.median,
      `${round(cpu.median / base.cpu, 2)}×`,
      h.compaction.ms,
    ];
  });
  const longest = of(LENGTHS[LENGTHS.length - 1]);
  const last = median(longest.wall) / base.wall;
  const lastCpu = median(longest.cpu) / base.cpu;
  const tenK = of(10_000);
  const tenKCpu = median(tenK.cpu) / base.cpu;
  writeResults(
    'growth',
    `Per-step cost of the ${STEPS_PER_RUN}-step tool turn on top of a longer and longer conversation (warm session, one compaction in each history), lengths interleaved per round; ${ROUNDS} rounds × ${TURNS_PER_SAMPLE} turns per length.`,
    [
      {
        title: 'µs per step by conversation length',
        columns: [
          'length (target)',
          'events before the turn',
          'median µs/step (wall)',
          'p10 – p90',
          'vs 10 events',
          'median µs/step (CPU)',
          'vs 10 events (CPU)',
          'the compaction itself (ms, once)',
        ],
        rows,
        notes: [
          verdict(
            lastCpu <= TARGET_RATIO,
            `flat: the 100,000-event step within ${TARGET_RATIO}× of the 10-event step (CPU ${round(lastCpu, 2)}×, wall ${round(last, 2)}×; 10,000 events: CPU ${round(tenKCpu, 2)}×)`,
          ),
          'The compaction replaces the first half of the closed turns, so the projection sent each step still grows with the history.',
          `From ${REUSE_FROM.toLocaleString('en')} events on, the sessions are set up once and kept across rounds (each turn adds some 69 events).`,
        ],
      },
    ],
    {
      lengths: Object.fromEntries(
        histories.map((h) => [
          h.target,
          { events: h.events.length, compaction: h.compaction, usPerStepWall: summarize(of(h.target).wall), usPerStepCpu: summarize(of(h.target).cpu) },
        ]),
      ),
      rounds: ROUNDS,
      turnsPerSample: TURNS_PER_SAMPLE,
      ratio10kTo10: { wall: round(median(tenK.wall) / base.wall, 3), cpu: round(tenKCpu, 3) },
      ratio100kTo10: { wall: round(last, 3), cpu: round(lastCpu, 3) },
      target: { ratio100kTo10: TARGET_RATIO, judgedOn: 'cpu', met: lastCpu <= TARGET_RATIO },
    },
  );
}

await main();
