/**
 * Fuzzing your own agent: your tools (and prompt) in the second host, the same
 * generators driving them, every invariant of the registry plus your own.
 *
 *   const result = await fuzzAgent({
 *     tools: [searchTool, bookTool],
 *     args: { book_room: fc.record({ room: fc.constantFrom('A', 'B'), nights: fc.integer({ min: 1, max: 3 }) }) },
 *     invariants: [neverBooksTwice],
 *     runs: 500,
 *   });
 *   assertNoViolation(result);
 *
 * See src/fuzz/README.md.
 */
import fc from 'fast-check';
import type { AnyToolDeclaration } from '../kernel/index.ts';
import type { RunOptions } from '../harness/second-host.ts';
import { counterexampleYaml } from './counterexample.ts';
import type { FuzzCaseOptions } from './generators/scenario.ts';
import type { FuzzTool } from './generators/tools.ts';
import { INVARIANTS, type Invariant } from '../harness/invariants/index.ts';
import { runFuzz, type FuzzOptions, type FuzzResult } from './run-fuzz.ts';

export interface FuzzAgentOptions extends Omit<FuzzOptions, 'invariants' | 'cases' | 'host'> {
  /** Your tools, in place of the example agent's. */
  readonly tools: readonly AnyToolDeclaration[];
  /** The arguments the model sends each tool, by name (default: `{}` and a string that is not JSON). Put valid arguments first: fast-check shrinks towards them. */
  readonly args?: Readonly<Record<string, fc.Arbitrary<unknown>>>;
  /** Your system prompt. */
  readonly system?: string;
  /** Your invariants, checked after the registry's. */
  readonly invariants?: readonly Invariant[];
  /** Check the registry's invariants too (default true). */
  readonly builtIns?: boolean;
  /** Generator sizes (script and inbox lengths, crashes). */
  readonly cases?: Omit<FuzzCaseOptions, 'tools' | 'agent'>;
  /** More host parts (rarely needed). */
  readonly host?: Omit<RunOptions, 'seed' | 'tools' | 'system'>;
}

/** The generators' view of your tools: their names and the arguments the model may send. */
export function fuzzTools(tools: readonly AnyToolDeclaration[], args: FuzzAgentOptions['args'] = {}): FuzzTool[] {
  return tools.map((tool) => ({
    name: tool.name,
    sideEffect: tool.sideEffect,
    args: args[tool.name] ?? fc.oneof({ withCrossShrink: true }, fc.constant<unknown>({}), fc.constant<unknown>('not json')),
  }));
}

export function fuzzAgent(options: FuzzAgentOptions): Promise<FuzzResult> {
  if (options.tools.length === 0) throw new Error('fuzzAgent: give it at least one tool');
  for (const name of Object.keys(options.args ?? {})) {
    if (!options.tools.some((t) => t.name === name)) throw new Error(`fuzzAgent: args for "${name}", but no tool has that name`);
  }
  const { tools, args, system, invariants, builtIns, cases, host, ...rest } = options;
  return runFuzz({
    ...rest,
    invariants: [...(builtIns === false ? [] : INVARIANTS), ...(invariants ?? [])],
    cases: { ...cases, tools: fuzzTools(tools, args), agent: 'none' },
    host: { ...host, tools, ...(system !== undefined ? { system } : {}) },
  });
}

/** Throws if the fuzz run found a violation, with the shrunk scenario as YAML (for test suites). */
export function assertNoViolation(result: FuzzResult): void {
  const failure = result.failure;
  if (!failure) return;
  const yaml = counterexampleYaml(failure.scenario, {
    invariant: failure.invariant.id,
    title: failure.invariant.title,
    message: failure.message,
    seed: result.seed,
    path: failure.path,
    runs: failure.foundAtRun,
    shrinks: failure.shrinks,
    crashAt: failure.crashAt,
    reproduce: `Reproduce: runScenarioFile(<this file>, { agent: { tools } }) and your invariants, or replay the search: fuzzAgent({ ...same options, seed: ${result.seed}, path: '${failure.path}' })`,
  });
  throw new Error(`invariant ${failure.invariant.id} failed: ${failure.message}\nreplay with { seed: ${result.seed}, path: '${failure.path}' }\n\n${yaml}`);
}
