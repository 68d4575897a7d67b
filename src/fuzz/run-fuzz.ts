/**
 * Runs generated fuzz cases through the second host — the unmodified loop in a
 * world built per case — and checks every invariant of the registry after each
 * run (src/harness/invariants, the list `loopgate run` checks too). With `loop`,
 * the loop is one behind the port (a team's own, a framework's adapter): each
 * case is cut to what it can be given (behind-the-port.ts), runs in the peer
 * host and is judged by the invariants' views from outside, as `loopgate run`
 * judges that loop. On a violation fast-check shrinks the case towards the
 * smallest one that still breaks the same invariant; the result carries the
 * shrunk scenario, its run, and fast-check's seed and path to replay the search.
 */
import fc from 'fast-check';
import { runScenario, type RunOptions } from '../harness/second-host.ts';
import type { Scenario } from '../harness/scenario/schema.ts';
import { acquireWireFake } from '../../providers/wire-fakes/server.ts';
import { fuzzCaseArb, type FuzzCase, type FuzzCaseOptions } from './generators/scenario.ts';
import { judgedFamilies, tallyDrawn, undrawn } from './drawn.ts';
import { checkFuzzOptions } from './fuzz-options.ts';
import { minimizeScenario } from './minimize.ts';
import { INVARIANTS, notApplicable, verdictOf, type AnyRun, type Invariant, type InvariantContext } from '../harness/invariants/index.ts';
import { nothingThrows } from '../harness/invariants/invariant-12-nothing-throws.ts';
import { NeverSettledError, unlessStarved } from '../harness/never-settled.ts';
import { runPeerScenario } from '../harness/loop-port/peer-host.ts';
import { peerSkipReason } from '../harness/loop-port/peer-case.ts';
import type { LoopUnderTestFactory } from '../harness/loop-port/peer-world.ts';
import { agentNameOf, buildAgent, EMPTY_REGISTRY, type AgentRegistry } from '../harness/world/agent-under-test.ts';
import { VirtualClock } from '../harness/virtual-clock.ts';
import { seededRandom } from '../harness/world/seeded-random.ts';
import { forLoop, LOOP_KEEPS_ITS_SHAPE, optionsForLoop, runnableOnLoop } from './behind-the-port.ts';

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
  /** A loop behind the port to fuzz in place of loopgate's own: its cases run in the peer host, judged from outside. */
  readonly loop?: FuzzLoop;
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

export interface FuzzLoop {
  readonly factory: LoopUnderTestFactory;
  /** The agents its cases name (the config's): their tools, system text and declarations. */
  readonly agents?: AgentRegistry;
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
  readonly run: AnyRun | undefined;
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
  /** The loop behind the port that was fuzzed, if not loopgate's own. */
  readonly loop?: string;
  /** With `loop`: the families of faults its cases draw (the rest need what it does not declare). */
  readonly families?: readonly string[];
  /** Generated runs the loop could not run (what its agent declares needs what the loop lacks), and the first reason. */
  readonly skipped?: { readonly runs: number; readonly reason: string };
  readonly failure?: FuzzFailure;
}

interface Violation {
  readonly invariant: Invariant;
  readonly message: string;
  readonly run: AnyRun | undefined;
}

const DEFAULT_RUNS = 200;
/** A fuzz case that settles nothing is a hang; real time is not virtual. */
const REAL_WAIT_LIMIT_MS = 250;
/** Over the wire a request is real I/O (an SDK over the wire fake; the first one starts it): allow it more. */
const WIRE_WAIT_LIMIT_MS = 5_000;
const MAX_EVENTS = 4_000;

export async function runFuzz(options: FuzzOptions = {}): Promise<FuzzResult> {
  checkFuzzOptions(options);
  const loop = options.loop;
  const given = options.invariants ?? INVARIANTS;
  if (given.length === 0) throw new Error('runFuzz: no invariants to check');
  // Behind the port, what the loop kept and reported is judged first (as `loopgate run` does): a list of messages, counts.
  const invariants = loop ? [LOOP_KEEPS_ITS_SHAPE, ...given] : given;
  const agents = loop?.agents ?? options.host?.agents ?? EMPTY_REGISTRY;
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
  let skipped: { runs: number; reason: string } | undefined;
  let counting = true; // generated runs are counted; shrink attempts are not

  const evaluateCase = async (fuzzCase: FuzzCase): Promise<{ violation: Violation | undefined; turns: number; skipped?: true }> => {
    if (loop) {
      const skip = (await peerSkipReason(fuzzCase.scenario, { loop: loop.factory, registry: agents, invariants })) ?? cutShort(fuzzCase);
      if (skip !== undefined) {
        if (counting) {
          skipped = { runs: (skipped?.runs ?? 0) + 1, reason: skipped?.reason ?? skip };
          for (const tally of judged.values()) tally.notJudged ??= `${loop.factory.id} could not run the case: ${skip}`;
        }
        return { violation: undefined, turns: 0, skipped: true };
      }
    }
    let run: AnyRun;
    try {
      const wire = fuzzCase.scenario.provider.kind === 'wire';
      // Raced against being starved, as `loopgate run` runs a case: a case waiting on what nothing will settle is a
      // violation found here, not the command's end (outside probe 55, MED-3).
      run = await unlessStarved<AnyRun>(
        loop
          ? runPeerScenario(fuzzCase.scenario, loop.factory, { seed: 1, agents, realWaitLimitMs: REAL_WAIT_LIMIT_MS })
          : runScenario(fuzzCase.scenario, {
              realWaitLimitMs: wire ? WIRE_WAIT_LIMIT_MS : REAL_WAIT_LIMIT_MS,
              maxEvents: MAX_EVENTS,
              ...options.host,
              seed: 1,
            }),
      );
    } catch (error) {
      if (error instanceof NeverSettledError) {
        // Tools always settle, nothing hangs: invariant 12's rule, whichever invariants the search was given (review of
        // stop 59: it was charged to the first of them).
        const invariant = invariants.find((i) => i.id === nothingThrows.id) ?? nothingThrows;
        return { violation: { invariant, message: error.message, run: undefined }, turns: 0 };
      }
      // The second host refused to build the world: a generator (or user tool) bug, reported as such. Behind the port,
      // the loop's own create() or runTurn threw out of the port (it must never): the loop's bug, judged by its shape rule.
      const message = loop
        ? `${loop.factory.id} threw out of the port (create() or a turn): ${(error as Error)?.message ?? String(error)}`
        : `the second host could not run the case: ${(error as Error).message}`;
      return { violation: { invariant: invariants[0]!, message, run: undefined }, turns: 0 };
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
      if (verdict !== undefined) return { violation: { invariant, message: verdict, run }, turns: turnsOf(run) };
    }
    // A bystander's conversation is judged by the same invariants (its own crash points: it had no crash of its own).
    const bystander = 'bystander' in run ? run.bystander : undefined;
    if (bystander)
      for (const invariant of invariants) {
        if (target !== undefined && invariant.id !== target) continue;
        if (notApplicable(invariant, bystander) !== undefined) continue;
        const verdict = await verdictOf(invariant, bystander, { crashPoints: options.crashPoints ?? 4 });
        if (verdict !== undefined) return { violation: { invariant, message: `in the bystander's conversation: ${verdict}`, run }, turns: turnsOf(run) };
      }
    return { violation: undefined, turns: turnsOf(run) };
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
    const { violation, turns: n, skipped: notRun } = await evaluateCase(fuzzCase);
    // What was drawn is tallied from the cases that ran: one the loop could not run reached no fault (review of stop 55, H2).
    if (firstFailureAt === undefined && !notRun) tallyDrawn(drawn, fuzzCase);
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
  const asked = options.host?.seams?.wrapTools ? { ...options.cases, production: 0 } : options.cases;
  const cases = loop ? optionsForLoop(asked ?? {}) : asked;
  const timeouts = loop ? await toolTimeouts(agents, cases?.agent) : new Map<string, number | undefined>();
  // Behind the port: cut to what the loop can be given; one still needing what it lacks is not run, and said. Not an
  // arbitrary's filter: over these cases (their inbox is fast-check commands, cloned and re-mapped) one drew a case
  // with no config at all.
  const arbitrary = loop ? fuzzCaseArb(cases).map((c) => forLoop(c, loop.factory.capabilities.supports, timeouts)) : fuzzCaseArb(cases);
  const cutShort = (c: FuzzCase): string | undefined =>
    loop && !runnableOnLoop(c, loop.factory.id, loop.factory.capabilities.supports, timeouts)
      ? `the case still needs what ${loop.factory.id} lacks once cut to what it declares (a loopgate bug; please report it with the seed)`
      : undefined;
  // Wire cases start and stop the wire fake; one kept for the whole run starts it once.
  const wire = acquireWireFake();
  try {
    details = await fc.check(fc.asyncProperty(arbitrary, predicate), {
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
    undrawn: details.failed || options.path ? [] : undrawn(drawn, generated - (skipped?.runs ?? 0), cases ?? {}, loop?.factory.capabilities.supports),
    ...(options.path ? { replayed: options.path } : {}),
    ...(loop ? { loop: loop.factory.id, families: judgedFamilies(cases ?? {}, loop.factory.capabilities.supports).map((f) => f.id) } : {}),
    ...(skipped ? { skipped } : {}),
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

/** Turns a run took: loopgate's results, or the turns a loop behind the port reported. */
function turnsOf(run: AnyRun): number {
  return 'results' in run ? run.results.length : run.reports.length;
}

/** The agent's tools' own timeouts, by name (what decides whether a slow body outlasts its timeout). */
async function toolTimeouts(agents: AgentRegistry, agentName: string | undefined): Promise<Map<string, number | undefined>> {
  const name = agentName ?? agentNameOf({ agent: undefined } as unknown as Scenario, agents);
  const agent = await buildAgent(name, agents, { clock: new VirtualClock(), random: seededRandom(1) });
  return new Map((agent.tools ?? []).map((t) => [t.name, t.timeoutMs]));
}
