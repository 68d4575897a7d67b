/**
 * The options of `runFuzz` and `fuzzAgent`, checked before any case runs, one
 * line naming the option: what the CLI refuses as flags, the programmatic entry
 * refuses too. Without it `runs: 0` (or -3, NaN) checked nothing and passed
 * `assertNoViolation`, `runs: 2.5` ran without bound, and a seed fast-check reads
 * some other way (-1, 1.5, 2 ** 40) could not be replayed as printed.
 */
import { InputError } from '../kernel/index.ts';
import { invariantListProblem } from '../harness/invariants/index.ts';

export const FUZZ_RUNS = { min: 1, max: 10_000_000 } as const;
export const FUZZ_SEED = { min: 0, max: 0xffffffff } as const;
const PATH = /^\d+(:\d+)*$/;

export class FuzzOptionError extends InputError {
  constructor(message: string) {
    super(`fuzz: ${message}`);
    this.name = 'FuzzOptionError';
  }
}

function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  return Array.isArray(value) ? 'a list' : `a ${typeof value}`;
}

function integerIn(name: string, value: unknown, range: { readonly min: number; readonly max: number }): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < range.min || value > range.max)
    throw new FuzzOptionError(`${name}: expected an integer from ${range.min} to ${range.max}, got ${shown(value)}`);
}

export interface CheckedFuzzOptions {
  readonly runs?: unknown;
  readonly seed?: unknown;
  readonly timeLimitMs?: unknown;
  readonly path?: unknown;
  readonly maxShrinkMs?: unknown;
  readonly crashPoints?: unknown;
  readonly invariants?: readonly unknown[];
}

/** Throws a FuzzOptionError naming the first bad option. */
export function checkFuzzOptions(options: CheckedFuzzOptions): void {
  if (options.runs !== undefined) integerIn('runs', options.runs, FUZZ_RUNS);
  if (options.seed !== undefined) integerIn('seed', options.seed, FUZZ_SEED);
  const limit = options.timeLimitMs;
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isFinite(limit) || limit <= 0))
    throw new FuzzOptionError(`timeLimitMs: expected a positive number of milliseconds, got ${shown(limit)}`);
  const shrink = options.maxShrinkMs;
  if (shrink !== undefined && (typeof shrink !== 'number' || Number.isNaN(shrink) || shrink < 0))
    throw new FuzzOptionError(`maxShrinkMs: expected a number of milliseconds, 0 or more, got ${shown(shrink)}`);
  if (options.crashPoints !== undefined) integerIn('crashPoints', options.crashPoints, { min: 0, max: 1_000 });
  if (options.path !== undefined) {
    if (typeof options.path !== 'string' || !PATH.test(options.path))
      throw new FuzzOptionError(`path: expected fast-check's path, numbers separated by colons (e.g. 41:2:0), got ${shown(options.path)}`);
    if (options.seed === undefined) throw new FuzzOptionError('path needs the seed it was found with');
  }
  if (options.invariants !== undefined) {
    if (!Array.isArray(options.invariants)) throw new FuzzOptionError(`invariants: expected a list of invariants, got ${shown(options.invariants)}`);
    const problem = invariantListProblem(options.invariants);
    if (problem !== undefined) throw new FuzzOptionError(problem);
  }
}
