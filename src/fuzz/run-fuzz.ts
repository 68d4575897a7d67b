/**
 * Runs generated fuzz cases through the second host — the unmodified loop in a
 * world built per case — and checks every invariant of the registry after each
 * run (src/harness/invariants, the list `loopgate run` checks too). On a
 * violation fast-check shrinks the case towards the smallest one that still
 * breaks the same invariant; the result carries the shrunk scenario, its run,
 * and fast-check's seed and path to replay the search.
 */
import fc from 'fast-check';
import { runScenario, type RunOptions, type ScenarioRun } from '../harness/second-host.ts';
import type { Scenario } from '../harness/scenario/schema.ts';
import { acquireWireFake } from '../../providers/wire-fakes/server.ts';
import { fuzzCaseArb, type FuzzCase, type FuzzCaseOptions } from './generators/scenario.ts';
import { tallyDrawn, undrawn } from './drawn.ts';
import { checkFuzzOptions } from './fuzz-options.ts';
import { minimizeScenario } from './minimize.ts';
import { INVARIANTS, notApplicable, verdictOf, type Invariant, type InvariantContext } from '../harness/invariants/index.ts';

export interface FuzzProgress {
  readonly runs: number;
  readonly turns: number;
  readonly elapsedMs: number;
  readonly runsPerSecond: number;
  readonly turnsPerSecond: number;
  /** A violation was found and fast-check is shrinking it. */
  readonly shrinking: boolean;
  readonly shrinks: number;
}

export interface FuzzOptions {
  /** Cases to generate (default 200; with `timeLimitMs` alone: unbounded). */
  readonly runs?: number;
  /** fast-check's seed (default: random). */
  readonly seed?: number;
  /** Stop generating new cases after this long; a shrink already under way finishes. */
  readonly timeLimitMs?: number;
  /** Replay fast-check's path (from a previous failure, with its seed). */
  readonly path?: string;
  /** Default: every invariant of the registry. */
  readonly invariants?: readonly Invariant[];
  /** What to generate (tools, sizes, crashes). */
  readonly cases?: FuzzCaseOptions;
  /** Host parts for the second host: your tools and prompt, or (tests) broken seams. */
  readonly host?: Omit<RunOptions, 'seed'>;
  /** Crash points checked in memory per case without a crash point (default 4). */
  readonly crashPoints?: number;
  /** Give up shrinking after this long (default 120 s); the smallest case so far is kept. */
  readonly maxShrinkMs?: number;
  readonly onProgress?: (progress: FuzzProgress) => void;
  /** How often onProgress is called (default 1000 ms). */
  readonly progressEveryMs?: number;
  /** Told before each case runs: the generated run's number (1-based) and the seed, or that it is a shrink step after that run. */
  readonly onCase?: (at: FuzzCaseAt) => void;
}

export interface FuzzCaseAt {
  readonly run: number;
  readonly seed: number;
  readonly shrinking: boolean;
}

export interface FuzzFailure {
  readonly invariant: Invariant;
  readonly message: string;
  readonly scenario: Scenario;
  readonly crashAt: number | undefined;
  /** The shrunk case's run. */
  readonly run: ScenarioRun | undefined;
  /** fast-check's path to the shrunk case (replay with the same seed). */
  readonly path: string;
  /** The case number that first failed. */
  readonly foundAtRun: number;
  readonly shrinks: number;
}

export interface FuzzResult {
  readonly seed: number;
  /** Cases generated and checked (shrink attempts not counted). */
  readonly runs: number;
  readonly turns: number;
  readonly durationMs: number;
  readonly runsPerSecond: number;
  readonly turnsPerSecond: number;
  /** Generation stopped at the time limit. */
  readonly interrupted: boolean;
  readonly invariants: readonly Invariant[];
  /**
   * Per invariant id: in how many generated runs it was judged, and the first reason
   * it was not (a part the agent supplies in place of the scenario's, say). An
   * invariant judged in no run held nothing, and the report says so.
   */
  readonly judged: ReadonlyMap<string, { readonly runs: number; readonly notJudged?: string }>;
  /** Per family of faults and features (drawn.ts): in how many generated cases it appeared. */
  readonly drawn: ReadonlyMap<string, number>;
  /** The families the run should have drawn many times over and drew in no case: the fuzzer is broken. */
  readonly undrawn: readonly string[];
  /** The `path` replayed, when the run was a replay: its runs are that case's shrink candidates, not fresh draws. */
  readonly replayed?: string;
  readonly failure?: FuzzFailure;
}

interface Violation {
  readonly invariant: Invariant;
  readonly message: string;
  readonly run: ScenarioRun | undefined;
}

const DEFAULT_RUNS = 200;
/** A fuzz case that settles nothing is a hang; real time is not virtual. */
const REAL_WAIT_LIMIT_MS = 250;
/** Over the wire a request is real I/O (an SDK over the wire fake; the first one starts it): allow it more. */
const WIRE_WAIT_LIMIT_MS = 5_000;
const MAX_EVENTS = 4_000;

export async function runFuzz(options: FuzzOptions = {}): Promise<FuzzResult> {
  checkFuzzOptions(options);
  const invariants = options.invariants ?? INVARIANTS;
  if (invariants.length === 0) throw new Error('runFuzz: no invariants to check');
  const seed = options.seed ?? (Math.random() * 0x1_0000_0000) >>> 0;
  const runs = options.runs ?? (options.timeLimitMs !== undefined ? Number.MAX_SAFE_INTEGER : DEFAULT_RUNS);
  const started = performance.now();
  const deadline = options.timeLimitMs !== undefined ? started + options.timeLimitMs : undefined;
  const maxShrinkMs = options.maxShrinkMs ?? 120_000;
  const everyMs = options.progressEveryMs ?? 1_000;
  const context = (c: FuzzCase): InvariantContext =>
    c.crashAt !== undefined ? { crashAt: c.crashAt } : { crashPoints: options.crashPoints ?? 4, ...(c.reopen ? { reopenFromSqlite: true } : {}) };

  let generated = 0;
  let turns = 0;
  let shrinks = 0;
  let target: string | undefined; // once an invariant fails, shrinking keeps to it
  let firstFailureAt: number | undefined;
  let foundAtRun = 0;
  let lastProgress = started;
  const judged = new Map<string, { runs: number; notJudged?: string }>(invariants.map((i) => [i.id, { runs: 0 }]));
  const drawn = new Map<string, number>();
  let counting = true; // generated runs are counted; shrink attempts are not

  const evaluateCase = async (fuzzCase: FuzzCase): Promise<{ violation: Violation | undefined; turns: number }> => {
    let run: ScenarioRun;
    try {
      const realWaitLimitMs = fuzzCase.scenario.provider.kind === 'wire' ? WIRE_WAIT_LIMIT_MS : REAL_WAIT_LIMIT_MS;
      run = await runScenario(fuzzCase.scenario, { realWaitLimitMs, maxEvents: MAX_EVENTS, ...options.host, seed: 1 });
    } catch (error) {
      // The second host refused to build the world: a generator (or user tool) bug, reported as such.
      return {
        violation: { invariant: invariants[0]!, message: `the second host could not run the case: ${(error as Error).message}`, run: undefined },
        turns: 0,
      };
    }
    for (const invariant of invariants) {
      if (target !== undefined && invariant.id !== target) continue;
      const why = notApplicable(invariant, run);
      const tally = judged.get(invariant.id)!;
      if (why !== undefined) {
        if (counting) tally.notJudged ??= why;
        continue;
      }
      if (counting) tally.runs++;
      const verdict = await verdictOf(invariant, run, context(fuzzCase));
      if (verdict !== undefined) return { violation: { invariant, message: verdict, run }, turns: run.results.length };
    }
    // A bystander's conversation is judged by the same invariants (its own crash points: it had no crash of its own).
    const bystander = run.bystander;
    if (bystander)
      for (const invariant of invariants) {
        if (target !== undefined && invariant.id !== target) continue;
        if (notApplicable(invariant, bystander) !== undefined) continue;
        const verdict = await verdictOf(invariant, bystander, { crashPoints: options.crashPoints ?? 4 });
        if (verdict !== undefined) return { violation: { invariant, message: `in the bystander's conversation: ${verdict}`, run }, turns: run.results.length };
      }
    return { violation: undefined, turns: run.results.length };
  };

  const progress = (now: number) => {
    const elapsedMs = now - started;
    options.onProgress?.({
      runs: generated,
      turns,
      elapsedMs,
      runsPerSecond: generated / Math.max(elapsedMs / 1000, 1e-9),
      turnsPerSecond: turns / Math.max(elapsedMs / 1000, 1e-9),
      shrinking: firstFailureAt !== undefined,
      shrinks,
    });
  };

  const predicate = async (fuzzCase: FuzzCase): Promise<boolean> => {
    const now = performance.now();
    if (firstFailureAt === undefined && deadline !== undefined && now > deadline) throw new fc.PreconditionFailure(true);
    if (firstFailureAt !== undefined && now - firstFailureAt > maxShrinkMs) throw new fc.PreconditionFailure(true);
    if (now - lastProgress >= everyMs) {
      lastProgress = now;
      progress(now);
    }
    options.onCase?.({ run: firstFailureAt === undefined ? generated + 1 : foundAtRun, seed, shrinking: firstFailureAt !== undefined });
    if (firstFailureAt === undefined) tallyDrawn(drawn, fuzzCase);
    const { violation, turns: n } = await evaluateCase(fuzzCase);
    if (firstFailureAt === undefined) {
      generated++;
      turns += n;
    } else {
      shrinks++;
    }
    if (!violation) return true;
    if (firstFailureAt === undefined) {
      counting = false;
      firstFailureAt = performance.now();
      foundAtRun = generated;
      target = violation.invariant.id;
    }
    return false;
  };

  let details;
  // A seam that wraps the loop's tools reaches the loop only when the harness drives it directly.
  const cases = options.host?.seams?.wrapTools ? { ...options.cases, production: 0 } : options.cases;
  // Wire cases start and stop the wire fake; one kept for the whole run starts it once.
  const wire = acquireWireFake();
  try {
    details = await fc.check(fc.asyncProperty(fuzzCaseArb(cases), predicate), {
      seed,
      numRuns: runs,
      ...(options.path ? { path: options.path, endOnFailure: true } : {}),
    });
  } finally {
    wire.release();
  }
  progress(performance.now());
  const durationMs = performance.now() - started;
  const base = {
    seed,
    runs: generated,
    turns,
    durationMs,
    runsPerSecond: generated / Math.max(durationMs / 1000, 1e-9),
    turnsPerSecond: turns / Math.max(durationMs / 1000, 1e-9),
    interrupted: details.interrupted && !details.failed,
    invariants,
    judged,
    drawn,
    // A replay of a path into a shrink tree runs that case's shrink candidates (stripped of what they could lose): not
    // a sample of what the generators draw (outside probe 32, F17).
    undrawn: details.failed || options.path ? [] : undrawn(drawn, generated, cases ?? {}),
    ...(options.path ? { replayed: options.path } : {}),
  };
  if (!details.failed || !details.counterexample) return base;

  // A last greedy pass removes what fast-check's shrinkers left; then the case runs once more for its verdict and run.
  const shrunk = details.counterexample[0] as FuzzCase;
  const minimized = await minimizeScenario(shrunk.scenario, async (scenario) => (await evaluateCase({ ...shrunk, scenario })).violation !== undefined);
  const fuzzCase: FuzzCase = { ...shrunk, scenario: minimized.scenario };
  const { violation } = await evaluateCase(fuzzCase);
  const failed = violation ?? {
    invariant: invariants.find((i) => i.id === target) ?? invariants[0]!,
    message: `failed during the search but not on its own (flaky?): ${String(details.errorInstance ?? 'the predicate returned false')}`,
    run: undefined,
  };
  return {
    ...base,
    failure: {
      invariant: failed.invariant,
      message: failed.message,
      scenario: fuzzCase.scenario,
      crashAt: fuzzCase.crashAt,
      run: failed.run,
      path: details.counterexamplePath ?? '',
      foundAtRun,
      shrinks: details.numShrinks + minimized.removals,
    },
  };
}
