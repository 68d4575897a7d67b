/**
 * The command line of `npm run mutate`. Bad input is one line naming the flag,
 * thrown as a MutateUsageError (exit 2, nothing run or written).
 */
import { parseArgs } from 'node:util';
import { AREA_NAMES, type AreaName } from './areas.ts';

export const JUDGES = ['gate', 'suite'] as const;
export type Judge = (typeof JUDGES)[number];

/** Which tests Stryker runs for a mutant: those it saw reach the mutant (perTest), or every test of the judge (all). */
export const COVERAGES = ['perTest', 'all'] as const;
export type Coverage = (typeof COVERAGES)[number];

export interface MutateArgs {
  readonly judge: Judge;
  /** Sites per area, or every site. */
  readonly sample: number | 'all';
  readonly seed: number;
  readonly concurrency: number;
  readonly coverage: Coverage;
  /** Reuse the results of the last run of this judge for mutants whose code and tests did not change (Stryker's incremental mode). */
  readonly incremental: boolean;
  /** Only these files (repository-relative), each in one of the areas. */
  readonly files: readonly string[];
  /** Only these areas (all when empty). */
  readonly areas: readonly AreaName[];
  /** Where the score and the survivors are written. */
  readonly out: string;
  /** List the sample and the population, run nothing. */
  readonly dryRun: boolean;
  /** The suite judge on only what this gate run left alive (its mutation-gate.json); its sample, seed and files. */
  readonly afterGate?: string;
}

export class MutateUsageError extends Error {}

export const DEFAULTS = { judge: 'gate', sample: 15, seed: 1, concurrency: 2, out: 'bench/results' } as const;

/** The gate judge runs in about a minute, so every mutant can run all of it; the whole suite cannot (a quarter of an hour). */
export const DEFAULT_COVERAGE: Record<Judge, Coverage> = { gate: 'all', suite: 'perTest' };

export const USAGE = `npm run mutate -- [--judge gate|suite] [--sample N|all] [--seed S] [--concurrency C] [--coverage perTest|all] [--incremental] [--area A]... [--file PATH]... [--out DIR] [--dry-run]

  --judge        gate: only \`loopgate run\` (bundled suite) and a bounded \`loopgate fuzz\` decide (bench/mutation/gate.judge.ts);
                 suite: the whole vitest suite of \`npm test\`. Default ${DEFAULTS.judge}.
  --sample       mutation sites per area (${AREA_NAMES.join(', ')}), drawn by --seed; \`all\` mutates everything. Default ${DEFAULTS.sample}.
  --seed         the sample's seed (an integer 0..4294967295). Default ${DEFAULTS.seed}.
  --concurrency  Stryker's test-runner processes. Default ${DEFAULTS.concurrency}.
  --coverage     perTest: a mutant runs only the tests Stryker saw reach it while measuring coverage (fast; misses a test
                 that reaches the mutant only through a value another test computed and a module cached);
                 all: every mutant runs the judge's every test, stopping at the first failure (slower, exact).
                 Default: all for the gate judge, perTest for the suite.
  --incremental  reuse the previous run's verdicts for unchanged mutants (reports/mutation/<judge>/incremental.json).
  --area         only mutate this area (repeatable): ${AREA_NAMES.join(', ')}. An area's sample is the same with or without the others.
  --file         only mutate this file (repeatable); it must be in one of the areas.
  --out          where mutation-<judge>.md and .json go. Default ${DEFAULTS.out}.
  --dry-run      print the sample and the population; run nothing.
  --after-gate   (suite judge) a gate run's mutation-gate.json: take its sample, seed and files, run the whole suite
                 only at the sites where the gate left a mutant alive, and carry the gate's other kills over (the
                 suite runs the gate's cases too). The gate run must be of the same code.`;

function integer(flag: string, text: string, min: number, max: number): number {
  if (!/^\d+$/.test(text)) throw new MutateUsageError(`--${flag} ${JSON.stringify(text)}: expected an integer from ${min} to ${max}`);
  const n = Number(text);
  if (n < min || n > max) throw new MutateUsageError(`--${flag} ${text}: expected an integer from ${min} to ${max}`);
  return n;
}

export function parseMutateArgs(argv: readonly string[]): MutateArgs | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        judge: { type: 'string' },
        sample: { type: 'string' },
        seed: { type: 'string' },
        concurrency: { type: 'string' },
        coverage: { type: 'string' },
        incremental: { type: 'boolean' },
        file: { type: 'string', multiple: true },
        area: { type: 'string', multiple: true },
        out: { type: 'string' },
        'dry-run': { type: 'boolean' },
        'after-gate': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new MutateUsageError((error as Error).message.split('\n')[0]!);
  }
  const v = parsed.values;
  if (v.help) return 'help';
  const judge = v.judge ?? DEFAULTS.judge;
  if (!(JUDGES as readonly string[]).includes(judge)) throw new MutateUsageError(`--judge ${JSON.stringify(judge)}: expected gate or suite`);
  const sample = v.sample === undefined ? DEFAULTS.sample : v.sample === 'all' ? 'all' : integer('sample', v.sample, 1, 1_000_000);
  const seed = v.seed === undefined ? DEFAULTS.seed : integer('seed', v.seed, 0, 0xffffffff);
  const concurrency = v.concurrency === undefined ? DEFAULTS.concurrency : integer('concurrency', v.concurrency, 1, 64);
  const coverage = v.coverage ?? DEFAULT_COVERAGE[judge as Judge];
  if (!(COVERAGES as readonly string[]).includes(coverage)) throw new MutateUsageError(`--coverage ${JSON.stringify(coverage)}: expected perTest or all`);
  const out = v.out ?? DEFAULTS.out;
  if (out.trim() === '') throw new MutateUsageError('--out "": expected a directory');
  const afterGate = v['after-gate'];
  if (afterGate !== undefined) {
    if (afterGate.trim() === '') throw new MutateUsageError('--after-gate "": expected the path of a mutation-gate.json');
    if (judge !== 'suite') throw new MutateUsageError('--after-gate: only with --judge suite (it re-judges what a gate run left alive)');
    const clash = (['sample', 'seed', 'file', 'area'] as const).find((flag) => v[flag] !== undefined);
    if (clash) throw new MutateUsageError(`--after-gate takes the sample, seed and files from the gate run: drop --${clash}`);
  }
  const areas = v.area ?? [];
  for (const area of areas)
    if (!(AREA_NAMES as readonly string[]).includes(area))
      throw new MutateUsageError(`--area ${JSON.stringify(area)}: expected one of ${AREA_NAMES.join(', ')}`);
  return {
    judge: judge as Judge,
    sample,
    seed,
    concurrency,
    coverage: coverage as Coverage,
    incremental: v.incremental ?? false,
    files: v.file ?? [],
    areas: [...new Set(areas)] as AreaName[],
    out,
    dryRun: v['dry-run'] ?? false,
    ...(afterGate !== undefined ? { afterGate } : {}),
  };
}
