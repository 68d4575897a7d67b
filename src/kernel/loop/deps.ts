/**
 * One place where a host turns an agent into the loop's dependencies, with
 * defaults for everything a host does not care to choose. The production host,
 * the second host and tests all build `LoopDeps` here.
 */
import type { Agent } from '../agent.ts';
import { AgentSettingError, checkAgentSettings, redactorGarbles } from '../agent-settings.ts';
import { systemClock, type Clock } from '../clock.ts';
import type { EventLog } from '../log/event-log.ts';
import { modelClientProblem, type ModelClient } from '../model/client.ts';
import { PRIORITY, PromptAssembler, type PromptFragment } from '../prompt/assembler.ts';
import { createRedactor, type Redactor } from '../redact/index.ts';
import { createToolExecutor, type ToolExecutorOptions } from '../tools/pipeline.ts';
import { checkPolicy } from '../tools/policy.ts';
import { ToolRegistry, toolDeclarationProblems } from '../tools/registry.ts';
import { ToolNameError, toolNameProblems } from '../tools/tool-names.ts';
import { resolveVisibility } from '../tools/visibility.ts';
import type { ToolExecutor } from '../tools/types.ts';
import { Tracer, type TraceRecord } from '../trace/tracer.ts';
import { DEFAULT_LOOP_CONFIG, type LoopConfig } from './config.ts';
import type { LoopDeps, PromptSource, TurnTracing } from './types.ts';

export interface LoopDepsInput {
  readonly log: EventLog;
  readonly model: ModelClient;
  readonly fallbackModels?: readonly ModelClient[];
  /** Tools, prompt, policy, hooks and limits. Default: an agent with no tools and a one-line prompt. */
  readonly agent?: Agent;
  /** Default: the system clock. */
  readonly clock?: Clock;
  /** Writes the log's unflushed events to the store (see `LoopDeps.persist`). Default: nothing is stored (in-memory only). */
  readonly persist?: LoopDeps['persist'];
  /** Default: a production-mode tracer per turn, its record kept nowhere but the turn's result. */
  readonly tracing?: TurnTracing;
  /**
   * Default: the agent's secrets and the common credential patterns. A redactor of your own must be idempotent —
   * redacting its own output changes nothing (a mask that holds no secret): the loop may pass a text through it more
   * than once (a message as received and as taken, a tool's content as the pipeline and the loop store it), so one
   * that escapes `&` as `&amp;` stores `&amp;amp;`.
   */
  readonly redact?: Redactor;
  /** On top of the defaults and the agent's own limits (the host decides the model name, for one). */
  readonly config?: Partial<LoopConfig>;
  /** Tool pipeline options beyond the agent's (output limits, default timeouts). */
  readonly toolOptions?: Omit<ToolExecutorOptions, 'registry' | 'visibility' | 'policy' | 'approver' | 'redact'>;
  /** Replaces the tool pipeline built from the agent (test seams). */
  readonly tools?: ToolExecutor;
  /** Replaces the prompt built from the agent. */
  readonly prompt?: PromptSource;
  readonly random?: () => number;
  readonly newId?: () => string;
  readonly signals?: LoopDeps['signals'];
  /** The conversation's id, as the host names it (see LoopDeps.conversation). */
  readonly conversation?: string;
}

const DEFAULT_SYSTEM = 'You are a helpful assistant.';

/** The agent of a loop given none: no settings, so none to check. */
const NO_AGENT: Agent = Object.freeze({});

export function loopDeps(input: LoopDepsInput): LoopDeps {
  checkModelClients(input.model, input.fallbackModels);
  const agent = input.agent ?? NO_AGENT;
  if (agent !== NO_AGENT) checkAgentSettings(agent);
  const clock = input.clock ?? systemClock;
  const redact = input.redact ?? createRedactor({ secrets: agent.secrets ?? [] });
  if (input.redact) {
    const garbles = redactorGarbles(
      input.redact,
      (agent.tools ?? []).map((t) => t.name),
    );
    if (garbles) throw new AgentSettingError(garbles);
  }
  // A log opened with its own redactor keeps it (`redactWith` fills only a log that has none): checked as the caller's.
  const own = input.log.redactor;
  if (own !== undefined && own !== input.redact) {
    const garbles = redactorGarbles(
      own,
      (agent.tools ?? []).map((t) => t.name),
    );
    if (garbles) throw new AgentSettingError(`the log's ${garbles}`);
  }
  let ids = 0;
  // Optional fields omitted, never undefined; set one by one in this order (no spreads: a loop is made per conversation).
  const deps: { -readonly [K in keyof LoopDeps]?: LoopDeps[K] } = { log: input.log, model: input.model };
  if (input.fallbackModels && input.fallbackModels.length > 0) deps.fallbackModels = input.fallbackModels;
  deps.tools = input.tools ?? agentTools(agent, redact, input.toolOptions);
  deps.prompt = input.prompt ?? agentPrompt(agent);
  deps.clock = clock;
  deps.persist = input.persist ?? (() => Promise.resolve());
  deps.tracing = input.tracing ?? keepNowhere(clock, redact);
  deps.redact = redact;
  deps.config = loopConfig(agent, input.config);
  if (agent.compactor) deps.compactor = agent.compactor;
  if (agent.claim) deps.claim = agent.claim;
  if (agent.checkpoints && agent.checkpoints.length > 0) deps.checkpoints = agent.checkpoints;
  if (agent.errorHandlers && agent.errorHandlers.length > 0) deps.errorHandlers = agent.errorHandlers;
  if (input.random) deps.random = input.random;
  deps.newId = input.newId ?? (() => `m${++ids}`);
  if (input.signals) deps.signals = input.signals;
  if (input.conversation !== undefined) deps.conversation = input.conversation;
  return deps as LoopDeps;
}

/** The loop configuration: defaults, then the agent's limits, then the host's. */
export function loopConfig(agent: Agent, host: Partial<LoopConfig> = {}): LoopConfig {
  const fromAgent = agent.config ?? {};
  return {
    ...DEFAULT_LOOP_CONFIG,
    ...defined(fromAgent),
    ...defined(host),
    retry: { ...DEFAULT_LOOP_CONFIG.retry, ...defined(fromAgent.retry ?? {}), ...defined(host.retry ?? {}) },
  } as LoopConfig;
}

/** The agent's tool pipeline: its tools, visibility layers, policy and approver. */
export function agentTools(agent: Agent, redact: Redactor, options: LoopDepsInput['toolOptions'] = {}): ToolExecutor {
  return createToolExecutor(agentToolOptions(agent, redact, options));
}

/**
 * Every problem `agentTools` would refuse in the agent, one line each (empty
 * when none): each broken tool declaration — every problem of each — and, beside
 * them, the policy's and the visibility layers' (their names checked against
 * every name the agent declares, so a rule naming a broken tool is not a second
 * problem). `agentTools` stops at the first; a config check lists them all.
 */
export function agentToolProblems(agent: Agent): string[] {
  const tools = agent.tools ?? [];
  const declared = toolDeclarationProblems(tools);
  let thrown: { readonly error: unknown } | undefined;
  if (declared.length === 0) {
    try {
      agentTools(agent, createRedactor());
      return [];
    } catch (error) {
      if (error instanceof ToolNameError) return error.problems.map((p) => p.message);
      // A layer or the policy of the wrong shape: both are listed below, not only the first `agentTools` met.
      thrown = { error };
    }
  }
  const problems = declared.map((e) => e.message);
  const names = tools.flatMap((t) => (typeof t?.name === 'string' ? [t.name] : []));
  const layers = agent.visibility ?? [];
  const shape = (check: () => void) => {
    try {
      check();
      return true;
    } catch (error) {
      problems.push(firstLine(error));
      return false;
    }
  };
  // In the order the pipeline checks them (pipeline.ts), so the line the loop refuses with comes first.
  const layersShaped = shape(() => resolveVisibility(names, layers));
  const policyShaped = shape(() => checkPolicy(agent.policy ?? {}));
  if (policyShaped && layersShaped) problems.push(...toolNameProblems(names, agent.policy, layers).map((p) => p.message));
  // Whatever else the pipeline refused (nothing today): never an agent refused by the loop and passed by the check.
  if (problems.length === 0 && thrown !== undefined) problems.push(firstLine(thrown.error));
  return problems;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}

/** What the agent's tool pipeline is built from. */
export function agentToolOptions(agent: Agent, redact: Redactor, options: LoopDepsInput['toolOptions'] = {}): ToolExecutorOptions {
  return {
    ...options,
    registry: new ToolRegistry(agent.tools ?? []),
    ...(agent.visibility ? { visibility: agent.visibility } : {}),
    ...(agent.policy ? { policy: agent.policy } : {}),
    ...(agent.approver ? { approver: agent.approver } : {}),
    redact,
  };
}

/** The agent's prompt: `system` as the identity fragment, then its fragments, assembled per request. */
export function agentPrompt(agent: Agent): PromptAssembler {
  const assembler = new PromptAssembler();
  const fragments: PromptFragment[] = [];
  if (agent.system !== undefined || (agent.prompt ?? []).length === 0)
    fragments.push({ id: 'identity', priority: PRIORITY.identity, text: agent.system ?? DEFAULT_SYSTEM });
  fragments.push(...(agent.prompt ?? []));
  for (const fragment of fragments) assembler.register(fragment);
  return assembler;
}

function keepNowhere(clock: Clock, redact: Redactor): TurnTracing {
  return {
    begin: (turn) => new Tracer({ clock, traceId: `turn-${turn}`, mode: 'production', redact }),
    finish: (tracer): TraceRecord => tracer.end(),
  };
}

function defined<T extends object>(o: T): Partial<T> {
  for (const key in o)
    if (Object.hasOwn(o, key) && o[key] === undefined) return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
  return o; // nothing undefined: spread as it is
}

/** The model and each fallback are model clients: one line naming the first that is not (AgentSettingError). */
export function checkModelClients(model: unknown, fallbackModels: readonly unknown[] | undefined): void {
  const problem =
    modelClientProblem(model, 'model') ?? (fallbackModels ?? []).map((c, i) => modelClientProblem(c, `fallbackModels[${i}]`)).find((p) => p !== undefined);
  if (problem !== undefined) throw new AgentSettingError(problem);
}
