/**
 * The agent under test, plugged in — never imported. A case names its agent
 * (`agent:` in the scenario, or the suite's default); the registry the runner is
 * given (from `loopgate.config.ts`, or the bundled suite's) builds a fresh one
 * for the case. `none` is the agent with no tools of its own: only what the
 * scenario declares.
 *
 * The scenario's scripted parts then stand in for the agent's where it has them:
 * its approver, compactor, checkpoint hooks and claim policy replace the agent's;
 * its policy rules and visibility layers are added after the agent's (a deny
 * still always wins, so a scenario can restrict but never lift); its model-error
 * handlers go ahead of the agent's (the loop asks its built-in ones last); its `system`
 * replaces the agent's one-text prompt and its prompt fragments join the
 * agent's (an id they share replaces the agent's); its config and secrets go on
 * top. Every dynamic fragment is recorded (scripted-prompt.ts).
 */
import {
  closestName,
  InputError,
  onlyItsOwnLoop,
  type Agent,
  type AgentContext,
  type AgentFactory,
  type AnyToolDeclaration,
  type CheckpointHook,
  type ClaimPolicy,
  type Clock,
  type ModelErrorHandler,
  type PolicyRule,
  type ToolPolicy,
  type VisibilityLayer,
} from '../../kernel/index.ts';
import type { Scenario } from '../scenario/schema.ts';
import type { ContractHarness } from '../../../providers/contract-suite/harness.ts';
import { SAME_TOOLS, signatureDifference, toolSignature, type ToolSignature } from './tool-signature.ts';
import type { FaultLog } from './fault-log.ts';
import { scriptedApprover, scriptedCheckpoint, scriptedClaim, scriptedCompactor, scriptedErrorHandler } from './scripted-hooks.ts';
import { scriptedTools, type ToolCounters } from './scripted-tools.ts';
import { recordedApprover, type ApprovalAnswer } from './recorded-approver.ts';
import { recordedCompactor, type CompactionCall } from './recorded-compactor.ts';
import { scenarioPrompt, type PromptRecorder } from './scripted-prompt.ts';

export const NO_AGENT = 'none';

export interface AgentRegistry {
  /** Factories by name. */
  readonly agents: ReadonlyMap<string, AgentFactory>;
  /** The agent of scenarios that name none. Default: `none`. */
  readonly defaultAgent?: string;
  /** Each agent built once when the config loaded (inspect-agent.ts): checks read these rather than build it again. */
  readonly inspected?: ReadonlyMap<string, AgentInspection>;
  /** The team's own model clients by name, each as its contract harness (config `clients`): a scenario's `provider.kind: own`. */
  readonly clients?: ReadonlyMap<string, ContractHarness>;
}

/** An agent built once with a throwaway clock, to be read, never run (inspect-agent.ts). */
export interface AgentInspection {
  /** The agent built; absent when the factory threw or returned no agent. */
  readonly agent?: Agent;
  /** The tools it declares. */
  readonly tools: readonly AnyToolDeclaration[];
  /** What the kernel refuses in it, one line each (a broken tool, a rule or layer naming no tool); empty when none. */
  readonly problems: readonly string[];
  /** The tools the inspected build declares, to compare every later build with. */
  readonly signature?: ToolSignature;
}

export const EMPTY_REGISTRY: AgentRegistry = { agents: new Map() };

/** The name of the agent a scenario runs with. */
export function agentNameOf(scenario: Scenario, registry: AgentRegistry): string {
  return scenario.agent ?? registry.defaultAgent ?? NO_AGENT;
}

export class UnknownAgentError extends Error {
  constructor(name: string, registry: AgentRegistry) {
    const known = [...registry.agents.keys(), NO_AGENT];
    const near = closestName(name, known);
    super(
      `agent ${JSON.stringify(name)} is not defined (known: ${known.join(', ')})${near ? `; did you mean ${near}?` : ''}; define it in loopgate.config.ts under agents`,
    );
    this.name = 'UnknownAgentError';
  }
}

/** A fresh agent for one case. */
export async function buildAgent(name: string, registry: AgentRegistry, context: AgentContext): Promise<Agent> {
  if (name === NO_AGENT && !registry.agents.has(NO_AGENT)) return {};
  const factory = registry.agents.get(name);
  if (!factory) throw new UnknownAgentError(name, registry);
  let agent: unknown;
  try {
    agent = await factory(context);
  } catch (error) {
    throw new AgentBuildError(`agent ${name}: the factory threw: ${firstLine(error)}`, { cause: error });
  }
  // Checked on every build, not only the first (the config's inspection): a factory may fail later.
  if (agent === null || typeof agent !== 'object' || Array.isArray(agent))
    throw new AgentBuildError(
      `agent ${name}: the factory returned ${agent === null ? 'null' : Array.isArray(agent) ? 'a list' : typeof agent}, not an agent ({ tools, system, … })`,
    );
  // The scenario checks and the fuzzer read the inspected build's tools: a case must run the same ones.
  const inspected = registry.inspected?.get(name)?.signature;
  const tools = (agent as Agent).tools;
  if (inspected && Array.isArray(tools)) {
    const difference = signatureDifference(inspected, toolSignature(tools), 'the inspected build', 'this build');
    if (difference) throw new AgentBuildError(`agent ${name}: its tools differ from the build loopgate inspected: ${difference}; ${SAME_TOOLS}`);
  }
  // Built without being told its loop (a wrapper factory that dropped the context), an SDK agent's adapter build that
  // only its own loop runs whole: refused in any other (review of stop 51).
  const partial = onlyItsOwnLoop(agent);
  if (partial && context.loop !== undefined && context.loop !== partial.loop) throw new AgentBuildError(`agent ${name}: ${partial.missing}`);
  return agent as Agent;
}

const AGENT_BUILD_ERROR = Symbol.for('loopgate.AgentBuildError');

/**
 * The code under test could not build its agent for a case: the case fails with
 * this one line (no stack of loopgate's); a command it stops is exit 2 with it.
 */
export class AgentBuildError extends InputError {
  /** Known across copies of loopgate (a config's import and the command's build): see PeerCancel. */
  readonly [AGENT_BUILD_ERROR] = true;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'AgentBuildError';
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as { [AGENT_BUILD_ERROR]?: unknown })[AGENT_BUILD_ERROR] === true;
  }
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.split('\n')[0]!;
}

/** A rule's `when: throws`: a predicate that fails on the arguments, as one reading a field they lack. */
function throwingPredicate(args: unknown): boolean {
  throw new TypeError(`scripted predicate failure: cannot read limits.max of ${JSON.stringify(args)}`);
}

/** The scenario's policy rules as the kernel's (ids numbered as the file lists them). */
export function scenarioPolicy(spec: Scenario['policy']): ToolPolicy | undefined {
  if (!spec) return undefined;
  return {
    rules: spec.rules.map(
      (r, i): PolicyRule => ({
        id: r.id ?? `rule-${i + 1}`,
        decision: r.decision,
        ...(r.tools ? { tools: r.tools } : {}),
        ...(r.sideEffects ? { sideEffects: r.sideEffects } : {}),
        ...(r.reason ? { reason: r.reason } : {}),
        ...(r.when === 'throws' ? { when: throwingPredicate } : {}),
      }),
    ),
    ...(spec.default ? { default: spec.default } : {}),
    ...(spec.onAskWithoutApprover ? { onAskWithoutApprover: spec.onAskWithoutApprover } : {}),
    ...(spec.approvalTimeoutMs ? { approvalTimeoutMs: spec.approvalTimeoutMs } : {}),
  };
}

/** The agent's policy with the scenario's added: every rule of both (a deny wins), the scenario's defaults on top. */
export function mergedPolicy(agent: ToolPolicy | undefined, scenario: ToolPolicy | undefined): ToolPolicy | undefined {
  if (!agent) return scenario;
  if (!scenario) return agent;
  const ids = new Set((agent.rules ?? []).map((r) => r.id));
  const renamed = (scenario.rules ?? []).map((r) => (ids.has(r.id) ? { ...r, id: `scenario:${r.id}` } : r));
  return { ...agent, ...scenario, rules: [...(agent.rules ?? []), ...renamed] };
}

export interface ScenarioAgentOptions {
  /** The agent's name in the registry (for messages). */
  readonly name: string;
  readonly clock: Clock;
  readonly faults: FaultLog;
  /** Runs the first time a tool's body starts (for `at: { toolStart }` triggers). */
  readonly onStart: (tool: string, attempt: number) => void;
  /** Runs as the n-th approval request (1-based) is put to the approver, before it answers (for `at: { approval }` triggers). */
  readonly onApproval?: (n: number) => void;
  /** Runs as the n-th run of a checkpoint hook (1-based) starts, before it answers (for `at: { checkpoint }` triggers). */
  readonly onCheckpoint?: (n: number) => void;
  /** Whether the case's store holds the model's call with this id (read as each approval request is put). */
  readonly storedCall?: (callId: string) => boolean;
  /** Whether the case's store holds this call's start with no result after it (read as a STATEFUL or CRITICAL body starts). */
  readonly startStored?: (callId: string) => boolean;
  /** Records the prompt's fragments and what each dynamic one gave at each request (loopgate's own loop). */
  readonly prompt?: PromptRecorder;
  /** Parts a scenario file cannot express (state-table fixtures use them): they replace the scenario's and the agent's. */
  readonly claim?: ClaimPolicy;
  readonly errorHandlers?: readonly ModelErrorHandler[];
}

export interface ScenarioAgent {
  /** The agent the case runs: its own, with the scenario's scripts standing in. */
  readonly agent: Agent;
  /** Tool bodies that actually ran, counted around every tool. */
  readonly counters: ToolCounters;
  readonly policy: ToolPolicy | undefined;
  readonly visibility: readonly VisibilityLayer[];
  /** Every answer the approver gave, in order (filled as the case runs). */
  readonly approvals: readonly ApprovalAnswer[];
  /** Every compaction the loop asked for: what it offered, and what the compactor proposed (filled as the case runs). */
  readonly compactions: readonly CompactionCall[];
}

/** The agent under test with the scenario's scripts applied (see the top of this file for how they combine). */
export function scenarioAgent(own: Agent, scenario: Scenario, options: ScenarioAgentOptions): ScenarioAgent {
  const { clock, faults } = options;
  const { tools, counters } = scriptedTools(
    own.tools ?? [],
    scenario.tools,
    {
      clock,
      faults,
      onStart: options.onStart,
      ...(options.startStored ? { startStored: options.startStored } : {}),
    },
    options.name,
  );
  const policy = mergedPolicy(own.policy, scenarioPolicy(scenario.policy));
  const visibility = [...(own.visibility ?? []), ...(scenario.visibility ?? [])];
  const fragments = scenarioPrompt(own.prompt, scenario.prompt, faults);
  const prompt = options.prompt
    ? options.prompt.recorded({
        ...(scenario.system !== undefined ? { system: scenario.system } : own.system !== undefined ? { system: own.system } : {}),
        ...(fragments ? { prompt: fragments } : {}),
      })
    : fragments
      ? { prompt: fragments }
      : {};
  const approvals: ApprovalAnswer[] = [];
  let asked = 0;
  const approver = scenario.approver ? scriptedApprover(scenario.approver, clock) : own.approver;
  const compactions: CompactionCall[] = [];
  const compactor = scenario.compaction ? scriptedCompactor(scenario.compaction, clock, faults) : own.compactor;
  let checkpointRuns = 0;
  const hooks = scenario.checkpoints ? scenario.checkpoints.map((c) => scriptedCheckpoint(c, clock)) : own.checkpoints;
  // Tapped only for a scenario that waits for a hook's run (`at: { checkpoint: N }`): the agent's hooks otherwise run as given.
  const waitsForOne = scenario.inbox.some((entry) => entry.at?.checkpoint !== undefined);
  // Not a list: the kernel's to refuse, as given.
  const checkpoints = waitsForOne && Array.isArray(hooks) ? hooks.map((hook) => tappedCheckpoint(hook, () => options.onCheckpoint?.(++checkpointRuns))) : hooks;
  const agent: Agent = {
    ...own,
    tools,
    ...(scenario.system !== undefined ? { system: scenario.system } : {}),
    ...prompt,
    ...(policy ? { policy } : {}),
    ...(visibility.length > 0 ? { visibility } : {}),
    ...(approver ? { approver: recordedApprover(approver, clock, approvals, () => options.onApproval?.(++asked), options.storedCall) } : {}),
    ...(compactor ? { compactor: recordedCompactor(compactor, compactions, !scenario.compaction) } : {}),
    ...(checkpoints ? { checkpoints } : {}),
    ...(options.claim ? { claim: options.claim } : scenario.claim ? { claim: scriptedClaim(scenario.claim, clock) } : {}),
    ...(options.errorHandlers || scenario.errorHandlers
      ? { errorHandlers: [...(options.errorHandlers ?? []), ...(scenario.errorHandlers ?? []).map(scriptedErrorHandler), ...(own.errorHandlers ?? [])] }
      : {}),
    secrets: [...(own.secrets ?? []), ...(scenario.secrets ?? [])],
  };
  return { agent, counters, policy, visibility, approvals, compactions };
}

/**
 * `hook`, telling `started` as each of its runs starts (before it answers). Its name is read from the hook itself and
 * its run called on it: a hook written as a class (a getter over a private field, a method) stays what it is — a
 * spread copy dropped the getter and the kernel refused the agent (review of stop 59, HIGH-2).
 */
function tappedCheckpoint(hook: CheckpointHook, started: () => void): CheckpointHook {
  // A malformed hook of the agent's own is the kernel's to refuse, as given.
  if (hook === null || typeof hook !== 'object' || typeof hook.run !== 'function') return hook;
  return {
    name: hook.name,
    run: (context) => {
      started();
      return hook.run(context);
    },
  };
}
