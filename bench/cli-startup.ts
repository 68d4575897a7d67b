/**
 * How fast the command answers before it does any work: `loopgate --help` and
 * `--version` (nothing but the command definitions loads: every command imports
 * its SDKs, msw, the loop and the fuzzer inside its handler), against the floor
 * any TypeScript CLI on this Node pays — Node's own start, and Node loading one
 * tiny TypeScript file (type stripping). Wall time of a fresh process each
 * sample, interleaved rounds, medians. Target: `--help` well under a second
 * (the design brief: < 0.5 s).
 *
 *   LOOPGATE_CLI=path/to/bin/loopgate.js   measure another checkout (e.g. before a change)
 */
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { verdict, writeResults } from './lib/results.ts';
import { summarize } from './lib/stats.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const BIN = resolve(process.env.LOOPGATE_CLI ?? join(HERE, '..', 'bin', 'loopgate.js'));
const QUICK = process.env.LOOPGATE_BENCH_QUICK === '1';
const ROUNDS = QUICK ? 5 : 21;
const WARMUP = 2;

interface Contender {
  readonly name: string;
  readonly args: readonly string[];
}

const all: readonly Contender[] = [
  { name: 'node (empty script)', args: ['-e', ''] },
  { name: 'node + one TypeScript file', args: [join(HERE, 'lib', 'stats.ts')] },
  { name: 'loopgate --version', args: [BIN, '--version'] },
  { name: 'loopgate --help', args: [BIN, '--help'] },
];

function once(c: Contender): number {
  const start = process.hrtime.bigint();
  const child = spawnSync(process.execPath, c.args, { encoding: 'utf8', env: { ...process.env, CI: 'true' } });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (child.status !== 0) throw new Error(`${c.name} exited ${child.status}: ${child.stderr}`);
  return ms;
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

const samples = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
for (let round = 0; round < WARMUP + ROUNDS; round++) {
  for (let k = 0; k < contenders.length; k++) {
    const c = contenders[(round + k) % contenders.length]!;
    const ms = once(c);
    if (round >= WARMUP) samples.get(c.name)!.push(ms);
  }
}

const stats = Object.fromEntries([...samples].map(([name, s]) => [name, summarize(s)]));
const help = stats['loopgate --help']!;
const floor = stats['node + one TypeScript file']!;
writeResults(
  'cli-startup',
  `Wall time of a fresh process: \`loopgate --help\` and \`--version\` against Node's own floor; ${ROUNDS} interleaved rounds after ${WARMUP} warm-up rounds; medians (ms). Binary: ${BIN}.`,
  [
    {
      title: 'Start-up (ms, wall)',
      columns: ['what', 'median', 'p10', 'p90', 'min'],
      rows: contenders.map((c) => [c.name, stats[c.name]!.median, stats[c.name]!.p10, stats[c.name]!.p90, stats[c.name]!.min]),
      notes: [
        `loopgate --help: ${verdict(help.median < 500, '< 500 ms')}; ${Math.round(help.median - floor.median)} ms above Node loading one TypeScript file.`,
        'Wall time includes whatever else the machine was doing; on a shared machine compare medians, not single runs.',
        ...unsupported,
      ],
    },
  ],
  { rounds: ROUNDS, warmup: WARMUP, bin: BIN, ms: stats, helpMedianMs: help.median },
);
