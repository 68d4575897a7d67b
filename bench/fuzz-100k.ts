/**
 * A 100,000-run fuzz of the real loop (the unmodified AgentLoop in the second
 * host, every built-in property checked after every run), recording runs, seed,
 * runs and turns per second — wall-clock and per CPU-second, since this machine
 * is shared and other work steals wall time — and the machine. Any violation is
 * a failure of this bench (exit 1), with the shrunk counterexample written next
 * to the results.
 *
 * Usage: node bench/fuzz-100k.ts [runs] [seed]      (defaults: 100000, 20260101)
 * Writes bench/results/fuzz-100k.json and .md (LOOPGATE_BENCH_RESULTS overrides the directory).
 * Target (DESIGN.md, performance targets): fuzzing ≥ 5,000 turns per second.
 */
import { join } from 'node:path';
import { writeCounterexample } from '../src/fuzz/counterexample.ts';
import { runFuzz } from '../src/fuzz/run-fuzz.ts';
import { bundledFuzzOptions } from '../test/support/bundled.ts';
import { RESULTS_DIR, verdict, writeResults } from './lib/results.ts';

const runs = Number(process.argv[2] ?? 100_000);
const seed = Number(process.argv[3] ?? 20_260_101);
const TARGET_TURNS_PER_SECOND = 5_000;

const cpuStart = process.cpuUsage();
const samples: { runs: number; elapsedMs: number; turnsPerSecond: number }[] = [];
const result = await runFuzz({
  runs,
  seed,
  ...(await bundledFuzzOptions()),
  progressEveryMs: 10_000,
  onProgress: (p) => {
    samples.push({ runs: p.runs, elapsedMs: Math.round(p.elapsedMs), turnsPerSecond: Math.round(p.turnsPerSecond) });
    process.stderr.write(
      `${p.runs} runs, ${p.turns} turns, ${Math.round(p.runsPerSecond)} runs/s, ${Math.round(p.turnsPerSecond)} turns/s${p.shrinking ? ', shrinking' : ''}\n`,
    );
  },
});
const cpu = process.cpuUsage(cpuStart);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
const wallSeconds = result.durationMs / 1000;

let counterexample: string | undefined;
if (result.failure) {
  const f = result.failure;
  counterexample = await writeCounterexample(join(RESULTS_DIR, 'fuzz-100k-counterexample'), f.scenario, {
    invariant: f.invariant.id,
    title: f.invariant.title,
    message: f.message,
    seed: result.seed,
    path: f.path,
    runs: f.foundAtRun,
    shrinks: f.shrinks,
    crashAt: f.crashAt,
  });
}

const turnsPerCpuSecond = result.turns / cpuSeconds;
const round = (n: number) => Math.round(n);
writeResults(
  'fuzz-100k',
  `${result.runs.toLocaleString('en')} generated cases through the unmodified loop in the second host, every built-in property (${result.invariants.length}) checked after each run. Seed ${result.seed}. Replay: \`node bench/fuzz-100k.ts ${runs} ${result.seed}\` or \`loopgate fuzz --runs ${runs} --seed ${result.seed}\`.`,
  [
    {
      title: 'Result',
      columns: ['runs', 'turns', 'violations', 'seed', 'wall time', 'CPU time'],
      rows: [[result.runs, result.turns, result.failure ? 1 : 0, result.seed, `${wallSeconds.toFixed(1)} s`, `${cpuSeconds.toFixed(1)} s`]],
      notes: result.failure
        ? [`VIOLATION of ${result.failure.invariant.id}: ${result.failure.message}; counterexample ${counterexample}`]
        : ['no property was violated'],
    },
    {
      title: 'Throughput',
      columns: ['measure', 'wall-clock', 'per CPU-second', 'target'],
      rows: [
        ['runs per second', round(result.runsPerSecond), round(result.runs / cpuSeconds), ''],
        [
          'turns per second',
          round(result.turnsPerSecond),
          round(turnsPerCpuSecond),
          verdict(result.turnsPerSecond >= TARGET_TURNS_PER_SECOND, `≥ ${TARGET_TURNS_PER_SECOND} (wall)`),
        ],
      ],
      notes: [
        `Wall-clock rates include time other processes took from this shared 2-core machine; per-CPU-second rates count only this process's CPU time (its one JavaScript thread — the loop, the world, fast-check and the properties — plus V8's garbage-collector helper threads, which is why CPU time can exceed wall time).`,
        `A case holds ${(result.turns / Math.max(result.runs, 1)).toFixed(2)} turns on average (a multi-turn conversation with faults); about 5% of cases also crash at an event and reopen a real SQLite file.`,
      ],
    },
  ],
  {
    runs: result.runs,
    turns: result.turns,
    seed: result.seed,
    properties: result.invariants.map((p) => p.id),
    violation: result.failure ? { property: result.failure.invariant.id, message: result.failure.message, counterexample } : null,
    wallSeconds: Math.round(wallSeconds * 10) / 10,
    cpuSeconds: Math.round(cpuSeconds * 10) / 10,
    runsPerSecond: round(result.runsPerSecond),
    turnsPerSecond: round(result.turnsPerSecond),
    runsPerCpuSecond: round(result.runs / cpuSeconds),
    turnsPerCpuSecond: round(turnsPerCpuSecond),
    targetTurnsPerSecond: TARGET_TURNS_PER_SECOND,
    progress: samples,
  },
);
process.exitCode = result.failure ? 1 : 0;
