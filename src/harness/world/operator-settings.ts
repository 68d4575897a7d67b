/**
 * The host operator's tool settings of a scenario (`operator:`: the production
 * host's config `tools.allow`, `tools.deny`, `tools.ask`). Through the production
 * host they are its YAML config, and the host folds them around the agent
 * (host-agent.ts). Driven directly, the case's agent gets what the README and
 * host-agent.ts document the host adds — written here from that description, not
 * taken from the host's code, so a host that dropped or reordered them shows:
 *
 * - a visibility layer named `global` with the allow and deny lists, before the
 *   agent's own layers (an operator's deny is never lifted by a later layer);
 * - an `ask` rule with id `config:tools.ask`, after the agent's own rules.
 */
import type { Agent, PolicyRule, ToolPolicy, VisibilityLayer } from '../../kernel/index.ts';
import type { OperatorSettings } from '../scenario/schema.ts';

export interface OperatorParts {
  readonly layer: VisibilityLayer | undefined;
  readonly rule: PolicyRule | undefined;
}

export function operatorParts(settings: OperatorSettings | undefined): OperatorParts {
  const deny = settings?.deny ?? [];
  const layer =
    settings && (settings.allow !== undefined || deny.length > 0)
      ? { name: 'global', ...(settings.allow !== undefined ? { allow: settings.allow } : {}), deny }
      : undefined;
  const ask = settings?.ask ?? [];
  const rule: PolicyRule | undefined =
    ask.length > 0 ? { id: 'config:tools.ask', tools: ask, decision: 'ask', reason: 'configured to need approval' } : undefined;
  return { layer, rule };
}

/** The visibility layers in force: the operator's, then the agent's. */
export function withOperatorLayer(layers: readonly VisibilityLayer[], parts: OperatorParts): VisibilityLayer[] {
  return parts.layer ? [parts.layer, ...layers] : [...layers];
}

/** The policy in force: the agent's rules, then the operator's ask rule. */
export function withOperatorRule(policy: ToolPolicy | undefined, parts: OperatorParts): ToolPolicy | undefined {
  if (!parts.rule) return policy;
  return { ...(policy ?? {}), rules: [...(policy?.rules ?? []), parts.rule] };
}

/** The agent a directly driven loop runs: the operator's settings folded in as the host would. */
export function withOperator(agent: Agent, parts: OperatorParts): Agent {
  if (!parts.layer && !parts.rule) return agent;
  const policy = withOperatorRule(agent.policy, parts);
  return { ...agent, visibility: withOperatorLayer(agent.visibility ?? [], parts), ...(policy ? { policy } : {}) };
}
