/**
 * Fuzzing your own agent: your tools (and prompt) in the second host, the same
 * generators driving them, every invariant of the registry plus your own.
 *
 *   const result = await fuzzAgent({
 *     agent: () => ({ tools: [searchTool(db()), bookTool(db())] }), // fresh state per run
 *     args: { book_room: fc.record({ room: fc.constantFrom('A', 'B'), nights: fc.integer({ min: 1, max: 3 }) }) },
 *     invariants: [neverBooksTwice],
 *     runs: 500,
 *   });
 *   assertNoViolation(result);
 *
 * See docs/fuzzing.md.
 */
import fc from 'fast-check';
import { didYouMean, type AgentFactory, type AnyToolDeclaration } from '../kernel/index.ts';
import { INVARIANTS, type Invariant } from '../harness/invariants/index.ts';
import type { AgentRegistry, RunOptions } from '../harness/second-host.ts';
import { inspectAgent } from '../harness/world/inspect-agent.ts';
import { counterexampleYaml, failureInfo } from './counterexample.ts';
import type { FuzzCaseOptions } from './generators/scenario.ts';
import type { FuzzTool } from './generators/tools.ts';
import { checkFuzzOptions, FuzzOptionError } from './fuzz-options.ts';
import { argsFromSchema } from './generators/schema-args.ts';
import { runFuzz, type FuzzOptions, type FuzzResult } from './run-fuzz.ts';

/** The name your agent has in the fuzz cases (and in a counterexample file). */
const AGENT = 'agent-under-fuzz';

export interface FuzzAgentOptions extends Omit<FuzzOptions, 'invariants' | 'cases' | 'host'> {
  /** Your agent's factory: called for every generated case, so its tools start with fresh state each time. */
  readonly agent: AgentFactory;
  /**
   * The agent's name in the cases and the counterexample: the name your
   * loopgate.config.ts gives it, so `loopgate run FILE` replays the file as it
   * stands (default `agent-under-fuzz`).
   */
  readonly name?: string;
  /** The arguments the model sends each tool, by name (default: drawn from the tool's input schema, plus `{}` and a string that is not JSON). Put valid arguments first: fast-check shrinks towards them. */
  readonly args?: Readonly<Record<string, fc.Arbitrary<unknown>>>;
  /** Your invariants, checked after the registry's. */
  readonly invariants?: readonly Invariant[];
  /** Check the registry's invariants too (default true). */
  readonly builtIns?: boolean;
  /** Generator sizes (script and inbox lengths, crashes). */
  readonly cases?: Omit<FuzzCaseOptions, 'tools' | 'agent'>;
  /** More host parts (rarely needed). */
  readonly host?: Omit<RunOptions, 'seed' | 'agents'>;
}

/**
 * The generators' view of your tools: their names, levels and the arguments the model may send — yours, else
 * drawn from the tool's input schema most of the time (so its body runs), with `{}` and text that is not JSON.
 */
export function fuzzTools(tools: readonly AnyToolDeclaration[], args: FuzzAgentOptions['args'] = {}): FuzzTool[] {
  return tools.map((tool) => {
    const given = args[tool.name];
    if (given) return { name: tool.name, sideEffect: tool.sideEffect, args: given };
    const none = [fc.constant<unknown>({}), fc.constant<unknown>('not json')];
    const drawn = argsFromSchema(tool.input);
    if (!drawn) return { name: tool.name, sideEffect: tool.sideEffect, args: fc.oneof({ withCrossShrink: true }, ...none), undrawn: true };
    const mixed = fc.oneof({ withCrossShrink: true }, { weight: 8, arbitrary: drawn }, ...none.map((arbitrary) => ({ weight: 1, arbitrary })));
    return { name: tool.name, sideEffect: tool.sideEffect, args: mixed };
  });
}

/**
 * What the generators need to fuzz one agent of a registry: its tools, read from
 * the agent built once (by the config as it loaded, or here). Throws, one line
 * per problem, for an agent the kernel would refuse (a broken tool, a rule or
 * layer naming no tool).
 */
export async function fuzzCasesFor(registry: AgentRegistry, name: string, args: FuzzAgentOptions['args'] = {}): Promise<FuzzCaseOptions> {
  const inspection = await inspectAgent(name, registry);
  if (inspection.problems.length > 0) throw new Error(inspection.problems.map((p) => `agent ${name}: ${p}`).join('\n'));
  const tools = inspection.tools;
  for (const [tool, arb] of Object.entries(args)) {
    if (typeof (arb as { generate?: unknown } | null)?.generate !== 'function')
      throw new Error(
        `fuzz args for "${tool}": expected a fast-check arbitrary (fc.record(…), fc.constant(…)), got ${Array.isArray(arb) ? 'a list' : arb === null || arb === undefined ? String(arb) : typeof arb === 'object' ? 'an object' : `a ${typeof arb}`}`,
      );
  }
  for (const tool of Object.keys(args)) {
    if (!tools.some((t) => t.name === tool))
      throw new Error(
        `fuzz args for "${tool}", but agent ${name} has no tool of that name${didYouMean(
          tool,
          tools.map((t) => t.name),
        )} (it has: ${tools.map((t) => t.name).join(', ') || 'none'})`,
      );
  }
  // A generator that throws would stop the search with fast-check's stack, blaming loopgate:
  // a few draws before anything runs name the arbitrary instead, and one that throws only
  // later names itself when it does (FuzzArgsThrew).
  const guarded: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [tool, arb] of Object.entries(args)) {
    try {
      fc.sample(arb as fc.Arbitrary<unknown>, { numRuns: ARGS_PROBE_DRAWS, seed: 0 });
    } catch (error) {
      throw argsThrew(tool, error);
    }
    guarded[tool] = new GuardedArbitrary(tool, arb as fc.Arbitrary<unknown>);
  }
  return { tools: fuzzTools(tools, guarded), agent: name };
}

/** A user's `fuzz.args` arbitrary threw while fast-check drew or shrank a value: their input, not loopgate's bug. */
export class FuzzArgsThrew extends Error {
  override readonly name = 'FuzzArgsThrew';
}

function argsThrew(tool: string, error: unknown): FuzzArgsThrew {
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new FuzzArgsThrew(`fuzz.args.${tool}: the arbitrary threw while drawing a value: ${what.split('\n')[0]}`);
}

/** The user's arbitrary, unchanged, except that what it throws names it. */
class GuardedArbitrary extends fc.Arbitrary<unknown> {
  private readonly tool: string;
  private readonly inner: fc.Arbitrary<unknown>;
  constructor(tool: string, inner: fc.Arbitrary<unknown>) {
    super();
    this.tool = tool;
    this.inner = inner;
  }
  generate(random: fc.Random, biasFactor: number | undefined): fc.Value<unknown> {
    try {
      return this.inner.generate(random, biasFactor);
    } catch (error) {
      throw argsThrew(this.tool, error);
    }
  }
  canShrinkWithoutContext(value: unknown): value is unknown {
    return this.inner.canShrinkWithoutContext(value);
  }
  shrink(value: unknown, context: unknown): fc.Stream<fc.Value<unknown>> {
    const { tool, inner } = this;
    return new fc.Stream(
      (function* () {
        try {
          yield* inner.shrink(value, context);
        } catch (error) {
          throw argsThrew(tool, error);
        }
      })(),
    );
  }
}

/** How many values of each `fuzz.args` arbitrary are drawn before a search, to find one that throws. */
const ARGS_PROBE_DRAWS = 20;

export async function fuzzAgent(options: FuzzAgentOptions): Promise<FuzzResult> {
  if (typeof options.agent !== 'function') throw new Error('fuzzAgent: agent must be a factory, () => ({ tools, system, … })');
  const { agent, name = AGENT, args, invariants, builtIns, cases, host, ...rest } = options;
  if (typeof name !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(name) || name === 'none')
    throw new FuzzOptionError(`name: ${JSON.stringify(name)} is not an agent name: letters, digits, _ or - (at most 64), not "none"`);
  // Before the agent is built or anything runs: the same checks runFuzz makes — your list first, so an
  // index names your entry — then the list it will get.
  checkFuzzOptions({ ...rest, invariants: invariants ?? [] });
  checkFuzzOptions({ invariants: [...(builtIns === false ? [] : INVARIANTS), ...(invariants ?? [])] });
  const registry: AgentRegistry = { agents: new Map([[name, agent]]), defaultAgent: name };
  const generated = await fuzzCasesFor(registry, name, args);
  if ((generated.tools ?? []).length === 0) throw new Error('fuzzAgent: the agent has no tools to fuzz');
  return runFuzz({
    ...rest,
    invariants: [...(builtIns === false ? [] : INVARIANTS), ...(invariants ?? [])],
    cases: { ...cases, ...generated },
    host: { ...host, agents: registry },
  });
}
/** Throws if the fuzz run found a violation, with the shrunk scenario as YAML (for test suites). */
export function assertNoViolation(result: FuzzResult): void {
  const failure = result.failure;
  if (!failure) return;
  const yaml = counterexampleYaml(failure.scenario, {
    ...failureInfo(result, failure),
    reproduce: `${
      failure.scenario.agent === AGENT
        ? `Reproduce: runScenarioFile(<this file>, { agents: { '${AGENT}': yourAgent } }) and your invariants`
        : `Reproduce: loopgate run <this file> (with agents: { ${failure.scenario.agent} } in loopgate.config.ts and your invariants)`
    }, or replay the search: fuzzAgent({ ...same options, seed: ${result.seed}, path: '${failure.path}' })`,
  });
  throw new Error(`invariant ${failure.invariant.id} failed: ${failure.message}\nreplay with { seed: ${result.seed}, path: '${failure.path}' }\n\n${yaml}`);
}
