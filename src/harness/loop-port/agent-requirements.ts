/**
 * What the agent's own settings need from the loop a scenario runs against. A
 * peer is handed the agent's tools and its `system` text, nothing else: a policy,
 * visibility layers, a claim policy, a compactor, error handlers, checkpoints,
 * prompt fragments, budgets, and a tool's output schema and rendering for the
 * model — all the agent declares beyond each tool's name, description, input
 * and body — are dropped. Where one of them
 * would change this scenario's run — the policy decides a tool the script calls
 * other than allow, a layer hides one, the claim rewrites, drops or refuses one of
 * its messages, the script overflows with a compactor there — the case is skipped
 * for a peer that lacks it, with the reason, instead of passing a run the agent
 * itself forbids (requirements.ts does the same for the scenario's own keys).
 */
import { evaluateRules, resolveVisibility, type Agent, type PendingMessage, type SideEffect } from '../../kernel/index.ts';
import type { Scenario } from '../scenario/schema.ts';
import type { Capability } from './capabilities.ts';
import { isSdkApproval } from './tool-approval.ts';

export interface AgentNeed {
  readonly need: Capability;
  /** What in the agent needs it, for the skip reason ("its policy decides merge_pr: ask (rule merge-asks)"). */
  readonly why: string;
}

const LEVELS: readonly SideEffect[] = ['NONE', 'IDEMPOTENT', 'STATEFUL', 'CRITICAL'];

export async function agentRequirementsOf(agent: Agent, scenario: Scenario): Promise<AgentNeed[]> {
  const needs = new Map<Capability, string>();
  const add = (need: Capability, why: string) => {
    if (!needs.has(need)) needs.set(need, why);
  };
  const steps = [...scenario.provider.script, ...(scenario.provider.fallback ?? [])];
  const calls = steps.flatMap((s) => s.tool_use ?? []);
  const levelOf = new Map((agent.tools ?? []).map((t) => [t.name, t.sideEffect]));

  if (agent.policy) {
    for (const call of calls) {
      // A tool the agent does not declare (a scenario stub) could be any level: the strictest verdict counts.
      const levels = levelOf.has(call.name) ? [levelOf.get(call.name)!] : LEVELS;
      const verdict = levels
        .map((sideEffect) => evaluateRules(agent.policy!, { tool: call.name, sideEffect, args: call.args }))
        .find((v) => v.verdict !== 'allow');
      if (!verdict) continue;
      // An SDK's own approval of its tool (needsApproval): a peer holding such calls itself carries it.
      const rule = agent.policy.rules?.find((r) => r.id === verdict.rule);
      if (verdict.verdict === 'ask' && isSdkApproval(rule)) add('sdk-approval', `its tool ${call.name} holds the call for approval (needsApproval)`);
      else
        add('policy', `its policy decides ${call.name}: ${verdict.verdict} (${verdict.rule === 'no_matching_rule' ? 'its default' : `rule ${verdict.rule}`})`);
      if (verdict.verdict === 'ask' && agent.approver) add('approver', `its approver is asked about ${call.name}`);
    }
  }
  // What a called tool promises about its results: a peer hands the model the raw result, checked by nothing (outside probe 33, A5).
  const called = new Set(calls.map((c) => c.name));
  for (const tool of agent.tools ?? []) {
    if (!called.has(tool.name)) continue;
    if (tool.output !== undefined) add('tool-output-schema', `its tool ${tool.name} declares an output schema`);
    if (tool.renderForModel !== undefined) add('tool-rendering', `its tool ${tool.name} renders its results for the model`);
  }
  if (agent.visibility && agent.visibility.length > 0 && calls.length > 0) {
    const visibility = resolveVisibility([...new Set(calls.map((c) => c.name))], agent.visibility);
    const hidden = calls.find((c) => !visibility.isVisible(c.name));
    if (hidden) add('visibility', `its visibility layers hide ${hidden.name}`);
  }
  if (agent.claim) {
    const why = await claimChanges(agent, scenario);
    if (why) add('claim', why);
  }
  if (agent.compactor && steps.some((s) => s.overflow !== undefined)) add('compaction', 'its compactor answers the context overflow the script makes');
  if ((agent.errorHandlers?.length ?? 0) > 0 && steps.some((s) => s.error !== undefined || s.reject !== undefined))
    add('error-handlers', 'its own error handlers are asked about the model errors the script makes');
  if ((agent.checkpoints?.length ?? 0) > 0) add('checkpoints', `its checkpoint hooks run before every turn closes`);
  if ((agent.prompt?.length ?? 0) > 0) add('prompt-fragments', 'its system prompt is assembled from fragments (a peer gets only `system`)');
  const c = agent.config ?? {};
  if (c.maxToolCallsPerTurn !== undefined || c.maxToolCallsPerSession !== undefined) add('budget:tool-calls', 'its tool-call budget');
  if (c.maxTokensPerTurn !== undefined || c.maxTokensPerSession !== undefined) add('budget:tokens', 'its token budget');
  if (c.modelTimeoutMs !== undefined) add('model-timeout', 'its model timeout');
  if (c.sideEffectNotice === false) add('side-effect-notice', 'its side-effect notice switched off');
  return [...needs].map(([need, why]) => ({ need, why }));
}

/**
 * Does the agent's claim policy change what the scenario's messages say? Each
 * message is offered as a turn would take it; a rewrite, a drop, a refusal or a
 * claim that throws all count (a throw would end the turn in loopgate).
 */
async function claimChanges(agent: Agent, scenario: Scenario): Promise<string | undefined> {
  const messages: PendingMessage[] = [];
  scenario.inbox.forEach((entry, i) => {
    const [intent, text] =
      entry.say !== undefined
        ? (['follow_up', entry.say] as const)
        : entry.steer !== undefined
          ? (['steer', entry.steer] as const)
          : entry.inject !== undefined
            ? (['inject', entry.inject] as const)
            : [undefined, undefined];
    if (intent) messages.push({ id: `message-${i + 1}`, intent, text, source: 'user', seq: i });
  });
  if (messages.length === 0) return undefined;
  for (const message of messages) {
    let decision: Awaited<ReturnType<NonNullable<Agent['claim']>['claim']>>;
    try {
      decision = await agent.claim!.claim([message], new AbortController().signal);
    } catch {
      return 'its claim policy throws on one of the messages';
    }
    if (decision?.decision !== 'allow') return 'its claim policy refuses one of the messages';
    if (decision.rewrite && decision.rewrite.size > 0) return 'its claim policy rewrites or drops one of the messages';
  }
  return undefined;
}
