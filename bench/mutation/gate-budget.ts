/**
 * How much of the gate the "gate" judge runs: `loopgate run`'s default seed, and
 * the bounded fuzz — `loopgate fuzz`'s default budget (1,000 cases) as four
 * fixed seeds of 250 (so a mutant's verdict is reproducible, and Stryker can
 * stop at the first seed that finds it). Shrinking is cut short: a judge needs
 * the verdict, not the smallest counterexample.
 */
import { DEFAULT_FUZZ_RUNS } from '../../src/cli/commands/fuzz-defaults.ts';

export const GATE_RUN_SEED = 1;

const SEEDS = [20_261_401, 20_261_402, 20_261_403, 20_261_404] as const;

export const GATE_FUZZ = {
  seeds: SEEDS,
  runs: DEFAULT_FUZZ_RUNS / SEEDS.length,
  maxShrinkMs: 500,
} as const;
