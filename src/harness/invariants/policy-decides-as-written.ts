/**
 * The permissions decide as written — the other direction of invariant 7. A
 * deny that no layer or rule makes refuses work the team allowed: the agent
 * cannot look an order up, and every invariant about harm still holds. Each
 * recorded decision about a registered tool is checked against the reference
 * (support/policy-reference.ts, which shares no code with the kernel's matcher):
 *
 * - hidden by `visibility` only if a layer as written hides the tool;
 * - denied by a rule (`by: policy`) only if a deny rule matches the call;
 *   allowed by a rule only if an allow rule matches and no deny or ask does;
 * - decided by the default (`no_matching_rule`) only if no rule matches;
 * - put to the approver (or to the no-approver fallback) only if the verdict
 *   is ask.
 *
 * A decision the reference cannot judge (a predicate, and no arguments to ask it
 * about) is left alone; budget refusals and unrecorded decisions are not the
 * rules'.
 */
import type { LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { viewOf } from './support/log-view.ts';
import { hiddenBy, matchingRules, referenceVerdict } from './support/policy-reference.ts';

export const policyDecidesAsWritten = defineInvariant({
  id: 'policy-decides-as-written',
  title: 'a call is hidden, denied, allowed or asked about only as the layers and rules as written say',
  appliesTo: loopgateOnly('no layered tool policy: nothing is decided by rules'),
  check: (run) => decidedAsWritten(run),
});

const FALLBACK_RULES = new Set(['no_approver', 'approval_timeout']);

function decidedAsWritten(run: ScenarioRun): string | undefined {
  const { visibility, policy } = run.permissions;
  const registered = run.sideEffectLevels;
  const known = viewOf(run).known;
  // The call each decision is about, by turn, step and id (a model may reuse an id in another step).
  const calls = new Map<string, { name: string; args: unknown }>();
  for (const e of known) {
    if (e.type !== 'assistant.message') continue;
    for (const block of (e as Extract<LogEvent, { type: 'assistant.message' }>).payload.content)
      if (block.type === 'tool_call') calls.set(`${e.payload.turn}/${e.payload.step}/${block.id}`, { name: block.name, args: block.args });
  }
  for (const e of known) {
    if (e.type !== 'policy.decision') continue;
    const { callId, tool, decision, by, rule, turn, step } = e.payload;
    if (!registered.has(tool) || by === 'budget' || rule === 'not_recorded') continue;
    const where = `call ${callId} to ${tool} (turn ${turn}, step ${step}) was ${decision === 'deny' ? 'denied' : decision === 'allow' ? 'allowed' : decision} by ${by} (${rule})`;
    const hidden = hiddenBy(visibility, tool);
    if (by === 'visibility') {
      if (!hidden) return `${where}, but every visibility layer as written leaves ${tool} visible`;
      continue;
    }
    if (hidden || !policy) continue;
    const call = calls.get(`${turn}/${step}/${callId}`);
    const args = call && call.name === tool ? { value: call.args } : undefined;
    const matching = matchingRules(policy, tool, registered.get(tool), args);
    const verdict = referenceVerdict(policy, tool, registered.get(tool), args);
    if (by === 'policy') {
      if (matching === undefined) continue;
      const own = matching.find((r) => r.id === rule);
      if (!own)
        return `${where}, but rule ${rule} does not match this call as written${matching.length > 0 ? ` (matching: ${matching.map((r) => r.id).join(', ')})` : ' (no rule matches it)'}`;
      if (decision === 'deny' && !matching.some((r) => r.decision === 'deny')) return `${where}, but no deny rule matches this call as written`;
      if (decision === 'allow' && matching.some((r) => r.decision !== 'allow'))
        return `${where}, but rule ${matching.find((r) => r.decision !== 'allow')!.id} (${matching.find((r) => r.decision !== 'allow')!.decision}) matches it too`;
      continue;
    }
    if (by === 'default' && rule === 'no_matching_rule') {
      if (matching !== undefined && matching.length > 0) return `${where}, but rule ${matching[0]!.id} (${matching[0]!.decision}) matches this call as written`;
      continue;
    }
    if (by === 'approver' || (by === 'default' && FALLBACK_RULES.has(rule))) {
      if (verdict !== undefined && verdict !== 'ask')
        return `${where}, but the rules as written ${typeof verdict === 'object' ? `deny it (${verdict.deniedBy})` : `say ${verdict}`}: it is not theirs to ask about`;
    }
  }
  return undefined;
}
