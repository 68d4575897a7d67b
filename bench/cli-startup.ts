/**
 * How fast the command starts, a fresh process each sample:
 *
 * - `loopgate --help` and `--version`: nothing but the command definitions loads
 *   (every command imports its SDKs, msw, the loop and the fuzzer inside its
 *   handler);
 * - `loopgate run`'s fixed start-up: the whole bundled suite loaded (config,
 *   every scenario file parsed and checked, the cases built) and no case run —
 *   `--grep` matching none, which ends "nothing was checked" (exit 1) just where
 *   the cases would start;
 *
 * against the floor any TypeScript CLI on this Node pays — Node's own start, and
 * Node loading one tiny TypeScript file (type stripping). The bin runs the built
 * JavaScript when dist/ is as new as the sources (else the sources), with Node's
 * module compile cache on; the results say which it ran. Wall and CPU time
 * (user + system, reported by the child itself) per sample, interleaved rounds,
 * medians; targets on wall time of a quiet machine: `--help` < 0.5 s, `run`'s
 * fixed start-up <= 2 s.
 *
 *   LOOPGATE_CLI=path/to/bin/loopgate.js   measure another checkout (e.g. before a change)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { verdict, writeResults } from './lib/results.ts';
import { round, summarize } from './lib/stats.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const BIN = resolve(process.env.LOOPGATE_CLI ?? join(HERE, '..', 'bin', 'loopgate.js'));
const QUICK = process.env.LOOPGATE_BENCH_QUICK === '1';
const ROUNDS = QUICK ? 5 : 21;
const WARMUP = 2;
const REPORT_CPU = join(HERE, 'lib', 'report-cpu.mjs');
const SCRATCH = mkdtempSync(join(tmpdir(), 'loopgate-startup-'));

interface Contender {
  readonly name: string;
  readonly args: readonly string[];
  /** The exit status that means it did what it should (the start-up run ends "nothing was checked"). */
  readonly status?: number;
}

const RUN_STARTUP = 'loopgate run: fixed start-up (bundled suite loaded, no case run)';
const all: readonly Contender[] = [
  { name: 'node (empty script)', args: ['-e', ''] },
  { name: 'node + one TypeScript file', args: [join(HERE, 'lib', 'stats.ts')] },
  { name: 'loopgate --version', args: [BIN, '--version'] },
  { name: 'loopgate --help', args: [BIN, '--help'] },
  { name: RUN_STARTUP, args: [BIN, 'run', '--grep', '^no case is called this$', '--reporter', 'json', '--out', join(SCRATCH, 'reports')], status: 1 },
];

/** What the bin runs: the build when it is as new as its sources (the bin's own rule), else the sources. */
function mode(): string {
  const root = resolve(dirname(BIN), '..');
  const stamp = join(root, 'dist', 'build-stamp.json');
  if (!existsSync(join(root, 'src', 'cli', 'main.ts'))) return 'built JavaScript (a package without sources)';
  try {
    const sources = (JSON.parse(readFileSync(stamp, 'utf8')) as { sources: Record<string, number> }).sources;
    for (const [path, mtimeMs] of Object.entries(sources))
      if (statSync(join(root, path)).mtimeMs !== mtimeMs) return 'the TypeScript sources (dist/ is older than them)';
    return 'built JavaScript (dist/, as new as the sources)';
  } catch {
    return 'the TypeScript sources (no build)';
  }
}

function once(c: Contender): { wall: number; cpu: number } {
  const cpuFile = join(SCRATCH, 'cpu');
  rmSync(cpuFile, { force: true });
  const start = process.hrtime.bigint();
  const child = spawnSync(process.execPath, ['--import', REPORT_CPU, ...c.args], {
    encoding: 'utf8',
    env: { ...process.env, CI: 'true', LOOPGATE_BENCH_CPU_FILE: cpuFile },
  });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  if (child.status !== (c.status ?? 0)) throw new Error(`${c.name} exited ${child.status}: ${child.stderr}`);
  return { wall, cpu: Number(readFileSync(cpuFile, 'utf8')) / 1_000 };
}

// Checked before timed; a contender the binary does not support (an older checkout without --version) is left out, saying so.
const unsupported: string[] = [];
const contenders = all.filter((c) => {
  try {
    once(c);
    return true;
  } catch (error) {
    unsupported.push(`${c.name}: not measured (${(error as Error).message.split('\n')[0]})`);
    return false;
  }
});

const load = round(loadavg()[0]!, 2);
const samples = new Map<string, { wall: number[]; cpu: number[] }>(contenders.map((c) => [c.name, { wall: [], cpu: [] }]));
for (let round = 0; round < WARMUP + ROUNDS; round++) {
  for (let k = 0; k < contenders.length; k++) {
    const c = contenders[(round + k) % contenders.length]!;
    const sample = once(c);
    if (round >= WARMUP) {
      samples.get(c.name)!.wall.push(sample.wall);
      samples.get(c.name)!.cpu.push(sample.cpu);
    }
  }
}
const loadAfter = round(loadavg()[0]!, 2);
rmSync(SCRATCH, { recursive: true, force: true });

const stats = Object.fromEntries([...samples].map(([name, s]) => [name, { wall: summarize(s.wall), cpu: summarize(s.cpu) }]));
const help = stats['loopgate --help']!;
const floor = stats['node + one TypeScript file']!;
const runStartup = stats[RUN_STARTUP];
const ran = mode();
writeResults(
  'cli-startup',
  `A fresh process each sample: \`loopgate --help\`, \`--version\` and \`loopgate run\`'s fixed start-up (the bundled suite loaded, \`--grep\` matching no case) against Node's own floor; ${ROUNDS} interleaved rounds after ${WARMUP} warm-up rounds; medians (ms). Binary: ${BIN}, running ${ran}, Node's module compile cache on.`,
  [
    {
      title: 'Start-up (ms)',
      columns: ['what', 'median (wall)', 'p10 – p90 (wall)', 'min (wall)', 'median (CPU)'],
      rows: contenders.map((c) => [
        c.name,
        stats[c.name]!.wall.median,
        `${stats[c.name]!.wall.p10} – ${stats[c.name]!.wall.p90}`,
        stats[c.name]!.wall.min,
        stats[c.name]!.cpu.median,
      ]),
      notes: [
        `loopgate --help: ${verdict(help.wall.median < 500, '< 500 ms')} (wall; CPU ${Math.round(help.cpu.median)} ms); ${Math.round(help.wall.median - floor.wall.median)} ms above Node loading one TypeScript file.`,
        runStartup
          ? `loopgate run, fixed start-up: ${verdict(runStartup.wall.median <= 2_000, '≤ 2 s')} (wall ${Math.round(runStartup.wall.median)} ms, CPU ${Math.round(runStartup.cpu.median)} ms).`
          : 'loopgate run, fixed start-up: not measured.',
        `Load average (1 min) before and after: ${load} / ${loadAfter} on ${cpus().length} cores. Wall time includes whatever else the machine was doing; CPU time (the child's own, user + system) does not: on a shared machine compare CPU medians.`,
        ...unsupported,
      ],
    },
  ],
  {
    rounds: ROUNDS,
    warmup: WARMUP,
    bin: BIN,
    ran,
    loadAverage: { before: load, after: loadAfter, cores: cpus().length },
    ms: stats,
    helpMedianMs: help.wall.median,
    runStartupMedianMs: runStartup?.wall.median,
    runStartupCpuMedianMs: runStartup?.cpu.median,
  },
);
