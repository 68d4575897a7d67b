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
 * still always wins, so a scenario can restrict but never lift); its `system`
 * replaces the agent's one-text prompt; its config and secrets go on top.
 */
import type { Agent, AgentContext, AgentFactory, PolicyRule, ToolPolicy } from '../../kernel/index.ts';
import type { Scenario } from '../scenario/schema.ts';

export const NO_AGENT = 'none';

export interface AgentRegistry {
  /** Factories by name. */
  readonly agents: ReadonlyMap<string, AgentFactory>;
  /** The agent of scenarios that name none. Default: `none`. */
  readonly defaultAgent?: string;
}

export const EMPTY_REGISTRY: AgentRegistry = { agents: new Map() };

/** The name of the agent a scenario runs with. */
export function agentNameOf(scenario: Scenario, registry: AgentRegistry): string {
  return scenario.agent ?? registry.defaultAgent ?? NO_AGENT;
}

export class UnknownAgentError extends Error {
  constructor(name: string, registry: AgentRegistry) {
    const known = [...registry.agents.keys(), NO_AGENT];
    super(`agent ${JSON.stringify(name)} is not defined (known: ${known.join(', ')}); define it in loopgate.config.ts under agents`);
    this.name = 'UnknownAgentError';
  }
}

/** A fresh agent for one case. */
export async function buildAgent(name: string, registry: AgentRegistry, context: AgentContext): Promise<Agent> {
  if (name === NO_AGENT && !registry.agents.has(NO_AGENT)) return {};
  const factory = registry.agents.get(name);
  if (!factory) throw new UnknownAgentError(name, registry);
  return await factory(context);
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
