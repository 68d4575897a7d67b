/**
 * The agent a host serves: the `Agent` it was given (the kernel's type: tools,
 * prompt, policy, hooks, limits), with the host's shorthand options folded in and
 * the YAML config's operator settings around it. One place decides how the two
 * combine, so the production host and every other host build the loop the same
 * way (`loopDeps`):
 *
 * - tools: the agent's, then `tools`;
 * - visibility: the config's layers first (`tools.allow`/`tools.deny` as the
 *   global layer, the selected mode), then the agent's — a deny is never lifted by
 *   a later layer, so an operator's deny always holds;
 * - policy: the agent's rules, the config's `tools.ask`, then `policyRules`; a deny
 *   wins whatever the order. When no approver answers, the agent's own
 *   `onAskWithoutApprover` if it has one, else the config's;
 * - approver, compactor, claim, checkpoints, error handlers: the option if given,
 *   else the agent's;
 * - secrets: the agent's and `secrets` (the host adds those in its environment);
 * - the prompt: `prompt` if given; else the agent's (`system`, fragments), with the
 *   config's `prompt.identity` as the identity when the agent has no prompt of its
 *   own, and the config's `prompt.deployment` added;
 * - loop limits: the ones the config writes (its budgets, retry, thresholds and
 *   model settings) apply over the agent's own `config`; where it writes none,
 *   the agent's hold, then the loop's defaults. The tool output cap and default
 *   tool timeout likewise: the config's when it writes them, else the pipeline's.
 */
import {
  agentPrompt,
  checkAgentSettings,
  createToolExecutor,
  PRIORITY,
  standardLayers,
  ToolRegistry,
  type Agent,
  type AnyToolDeclaration,
  type Approver,
  type CheckpointHook,
  type ClaimPolicy,
  type Compactor,
  type ModelErrorHandler,
  type PolicyRule,
  type PromptAssembler,
  type Redactor,
  type ToolExecutor,
  type ToolPolicy,
  type VisibilityLayer,
} from '../kernel/index.ts';
import { configWrites, type HostConfig } from './config.ts';
import { checkDeniedAndAsked } from './denied-and-asked.ts';
import { checkConfiguredToolNames, selectedMode } from './tool-names.ts';

/** The host options that name a part of the agent (HostOptions has them). */
export interface AgentParts {
  readonly agent?: Agent;
  readonly tools?: readonly AnyToolDeclaration[];
  readonly approver?: Approver;
  readonly compactor?: Compactor;
  readonly claim?: ClaimPolicy;
  readonly checkpoints?: readonly CheckpointHook[];
  readonly errorHandlers?: readonly ModelErrorHandler[];
  readonly secrets?: readonly string[];
}

/** The agent with the host's shorthand options (`tools`, `approver`, `compactor`, …) folded in. */
export function hostAgent(options: AgentParts): Agent {
  const agent = options.agent ?? {};
  const tools = [...(agent.tools ?? []), ...(options.tools ?? [])];
  // Once each: a host built from a config passes the checked build's secrets again (with its keys), and the limit counts them.
  const secrets = [...new Set([...(agent.secrets ?? []), ...(options.secrets ?? [])])];
  const approver = options.approver ?? agent.approver;
  const compactor = options.compactor ?? agent.compactor;
  const claim = options.claim ?? agent.claim;
  const checkpoints = options.checkpoints ?? agent.checkpoints;
  const errorHandlers = options.errorHandlers ?? agent.errorHandlers;
  return {
    ...agent,
    tools,
    secrets,
    ...(approver ? { approver } : {}),
    ...(compactor ? { compactor } : {}),
    ...(claim ? { claim } : {}),
    ...(checkpoints ? { checkpoints } : {}),
    ...(errorHandlers ? { errorHandlers } : {}),
  };
}

/** The visibility layers in force: the config's, then the agent's. */
export function hostVisibility(config: HostConfig, agent: Agent): VisibilityLayer[] {
  const mode = selectedMode(config);
  const global = config.tools.allow !== undefined || config.tools.deny.length > 0;
  const layers = standardLayers({
    ...(global ? { global: { ...(config.tools.allow ? { allow: config.tools.allow } : {}), deny: config.tools.deny } } : {}),
    ...(mode ? { mode } : {}),
  });
  return [...layers, ...(agent.visibility ?? [])];
}

/** The policy in force: every rule of the agent and the config (a deny wins). */
export function hostPolicy(config: HostConfig, agent: Agent, extraRules: readonly PolicyRule[] = []): ToolPolicy {
  const own = agent.policy ?? {};
  const rules: PolicyRule[] = [
    ...(own.rules ?? []),
    ...(config.tools.ask.length ? [{ id: 'config:tools.ask', tools: config.tools.ask, decision: 'ask' as const, reason: 'configured to need approval' }] : []),
    ...extraRules,
  ];
  return { ...own, rules, onAskWithoutApprover: own.onAskWithoutApprover ?? config.tools.onAskWithoutApprover };
}

/** The tool pipeline of the host's agent. Throws a ConfigError for a config tool list naming no tool (fail closed). */
export function hostToolExecutor(config: HostConfig, agent: Agent, redact: Redactor, extraRules?: readonly PolicyRule[]): ToolExecutor {
  checkAgentSettings(agent);
  const registry = new ToolRegistry(agent.tools ?? []);
  checkConfiguredToolNames(config, registry.names());
  checkDeniedAndAsked(config, registry.names());
  return createToolExecutor({
    registry,
    visibility: hostVisibility(config, agent),
    policy: hostPolicy(config, agent, extraRules),
    ...(agent.approver ? { approver: agent.approver } : {}),
    redact,
    // Only what the config writes: else the pipeline's own defaults, the ones the gate runs with.
    ...(configWrites(config, ['tools', 'maxOutputChars']) ? { maxOutputChars: config.tools.maxOutputChars } : {}),
    ...(configWrites(config, ['tools', 'defaultTimeoutMs']) ? { defaultTimeoutMs: config.tools.defaultTimeoutMs } : {}),
    ...(configWrites(config, ['tools', 'retryBackoffMs']) ? { retryBackoffMs: config.tools.retryBackoffMs } : {}),
  });
}

/** The system prompt's fragments: the agent's, the config's identity when the agent has none, and its deployment fragment. */
export function hostPrompt(config: HostConfig, agent: Agent): PromptAssembler {
  const ownPrompt = agent.system !== undefined || (agent.prompt ?? []).length > 0;
  const prompt = agentPrompt(ownPrompt ? agent : { ...agent, system: config.prompt.identity });
  if (config.prompt.deployment) prompt.register({ id: 'deployment', priority: PRIORITY.deployment, text: config.prompt.deployment });
  return prompt;
}
