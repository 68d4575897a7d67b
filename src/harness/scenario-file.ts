/**
 * Running scenario files from code (your own test suite, scripts): the same
 * runner and checks as `loopgate run`, with your agents. A case's id — and so its
 * seed — is its path relative to `root` (the config's folder), as in
 * `loopgate run`, so both give the same result for the same file.
 */
import { isAbsolute, resolve } from 'node:path';
import type { AgentFactory } from '../kernel/index.ts';
import type { PriceTable } from '../report/cost/price-table.ts';
import type { CaseOutcome } from './cases.ts';
import { caseSeed } from './cases.ts';
import { checkExpectations } from './checks/expectations.ts';
import type { JudgeSpec, ReplyPredicate } from './checks/reply-assertion-types.ts';
import { checkReplyAssertions, NO_REPLY_ASSERTIONS } from './checks/reply-assertions.ts';
import { checkInvariants, type Invariant } from './invariants/index.ts';
import { checkedScenarios } from './scenario/checked-scenarios.ts';
import { outcomeOfRun } from './scenario-case.ts';
import { runScenario } from './second-host.ts';
import type { HostMode } from './scenario/schema.ts';
import type { SuiteContext } from './suite-context.ts';
import { suiteInvariants } from './suites.ts';

export interface ScenarioFileOptions {
  /** Your agents by name (a scenario picks one with `agent:`). */
  readonly agents?: Readonly<Record<string, AgentFactory>>;
  /** The agent of scenarios that name none. Default: the only agent given, else `none`. */
  readonly defaultAgent?: string;
  /** Your invariants, checked after loopgate's. */
  readonly invariants?: readonly Invariant[];
  /** The run's seed (`loopgate run --seed`, default 1). */
  readonly seed?: number;
  /** Case ids are relative to this folder. Default: the working directory. */
  readonly root?: string;
  /**
   * The host to run through when the scenario does not say (`host:`): `loop` (the
   * default) or `production` (a real AgentHost). `describeScenarios` runs both.
   */
  readonly host?: HostMode;
  /** What model tokens cost (`prices` of loopgate.config.ts): each case then reports its cost. */
  readonly prices?: PriceTable;
  /** Predicates `expect.assert` names with `assertion:` (loopgate.config.ts `assertions`). */
  readonly assertions?: Readonly<Record<string, ReplyPredicate>>;
  /** Judge models of `rubric` assertions (loopgate.config.ts `judges`), and the one rubrics without a name use. */
  readonly judges?: Readonly<Record<string, JudgeSpec>>;
  readonly defaultJudge?: string;
}

/** A suite context from plain options (what `loopgate.config.ts` gives the CLI). */
export function contextFromOptions(options: ScenarioFileOptions): SuiteContext {
  const agents = new Map(Object.entries(options.agents ?? {}));
  const defaultAgent = options.defaultAgent ?? (agents.size === 1 ? [...agents.keys()][0] : undefined);
  return {
    registry: { agents, ...(defaultAgent !== undefined ? { defaultAgent } : {}) },
    invariants: suiteInvariants(options.invariants),
    root: resolve(options.root ?? process.cwd()),
    ...(options.prices ? { prices: options.prices } : {}),
    replies: {
      predicates: new Map(Object.entries(options.assertions ?? {})),
      judges: new Map(Object.entries(options.judges ?? {})),
      ...(options.defaultJudge !== undefined ? { defaultJudge: options.defaultJudge } : {}),
    },
  };
}

export async function runScenarioFile(
  path: string,
  options: ScenarioFileOptions | SuiteContext = {},
  seed = (options as ScenarioFileOptions).seed ?? 1,
  host: HostMode | undefined = (options as ScenarioFileOptions).host,
): Promise<CaseOutcome & { readonly id: string; readonly name: string }> {
  const context = 'registry' in options ? options : contextFromOptions(options);
  const file = isAbsolute(path) ? path : resolve(path);
  const [loaded] = await checkedScenarios([file], context.root, context.registry, context.replies ?? NO_REPLY_ASSERTIONS);
  const run = await runScenario(loaded.scenario, {
    seed: caseSeed(seed, `scenario:${loaded.id}`),
    agents: context.registry,
    ...(host ? { host } : {}),
  });
  const checks = [
    ...checkExpectations(run, loaded.scenario.expect),
    ...(await checkReplyAssertions(run, loaded.scenario.expect.assert, context.replies)),
    ...(await checkInvariants(run, context.invariants)),
  ];
  return { ...outcomeOfRun(run, checks, context.prices), id: loaded.id, name: loaded.scenario.name };
}
