/**
 * Invariant 7 against a reference: the scenario's visibility layers and policy
 * rules, evaluated here independently of the pipeline. A tool a layer denies (or
 * an earlier allow list leaves out) is never offered to the model and never runs,
 * whatever a later layer allows; a call a deny rule matches never runs, whatever
 * other rules allow; a call an ask rule matches is allowed only by the approver (or
 * the no-approver fallback), whatever other rules allow; a call a deny rule matches
 * is denied by a rule, never put to the approver. Calls to tools that do
 * not exist never run either.
 */
import type { LogEvent, ToolPolicy } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { viewOf } from './support/log-view.ts';
import { hiddenBy, referenceVerdict, type CallArgs } from './support/policy-reference.ts';

export { matchesPattern } from './support/policy-reference.ts';

export const denyNeverLifted = defineInvariant({
  id: 'invariant-07-deny-never-lifted',
  title: 'a deny is never lifted by a later layer or rule: a denied tool is never offered and never runs',
  invariant: 7,
  appliesTo: loopgateOnly('no layered tool policy: nothing can be denied or lifted'),
  check: (run) => neverOfferedOrRun(run),
});

/**
 * Why the policy must refuse the call, if it must: a matching deny rule (any
 * deny beats every allow), the default when no rule matches, or an ask with no
 * approver to answer it and the fallback set to deny.
 */
export function deniedByPolicy(
  policy: ToolPolicy | undefined,
  hasApprover: boolean,
  name: string,
  sideEffect: string | undefined,
  args?: CallArgs,
): string | undefined {
  const verdict = referenceVerdict(policy, name, sideEffect, args);
  if (verdict === undefined || typeof verdict === 'object') return verdict?.deniedBy;
  if (verdict === 'deny') return 'the policy default denies it';
  if (verdict === 'ask' && !hasApprover && (policy?.onAskWithoutApprover ?? 'deny') === 'deny')
    return 'it needs approval, there is no approver, and the fallback is deny';
  return undefined;
}

/** Which deny rule the reference says refuses the call outright, if one does. */
function deniedByRule(policy: ToolPolicy | undefined, name: string, sideEffect: string | undefined, args?: CallArgs): string | undefined {
  const verdict = referenceVerdict(policy, name, sideEffect, args);
  return typeof verdict === 'object' ? verdict.deniedBy : undefined;
}

/**
 * An ask is never lifted by an allow either: a call some rule (or the default)
 * says must be asked about is allowed only by the approver — or, with no approver
 * or none answering in time, by the configured fallback — never by a rule.
 */
function allowedWithoutAsking(
  policy: ToolPolicy | undefined,
  name: string,
  sideEffect: string | undefined,
  allowed: { by: string; rule: string },
  args?: CallArgs,
): string | undefined {
  if (referenceVerdict(policy, name, sideEffect, args) !== 'ask') return undefined;
  if (allowed.by === 'approver') return undefined;
  if (allowed.by === 'default' && FALLBACK_RULES.has(allowed.rule)) {
    // The fallback decides, and only as configured: an approver that never answers must not open a door the policy keeps shut.
    const fallback = fallbackOf(policy);
    return fallback === 'allow'
      ? undefined
      : `it needs approval and ${allowed.rule === 'approval_timeout' ? 'the approver did not answer in time' : 'there is no approver'}, so the fallback (onAskWithoutApprover) decides: ${fallback}; but it was allowed by default (${allowed.rule})`;
  }
  return `it needs approval, but it was allowed by ${allowed.by} (${allowed.rule}) without asking`;
}

/** The rules under which the no-approver fallback decides: no approver, or none answering in time. */
const FALLBACK_RULES = new Set(['no_approver', 'approval_timeout']);

/** What the policy says to do with an ask no approver answers (`onAskWithoutApprover`, default deny). */
function fallbackOf(policy: ToolPolicy | undefined): 'allow' | 'deny' {
  return policy?.onAskWithoutApprover ?? 'deny';
}

function neverOfferedOrRun(run: ScenarioRun): string | undefined {
  const { visibility, policy, approver } = run.permissions;
  const registered = run.sideEffectLevels;
  for (let i = 0; i < run.requests.length; i++) {
    for (const spec of run.requests[i]!.tools) {
      const hidden = hiddenBy(visibility, spec.name);
      if (hidden) return `request ${i + 1} offered ${spec.name} to the model, but ${hidden}`;
    }
  }
  const started = new Set<string>();
  const allowed = new Map<string, { by: string; rule: string }>();
  const decided = new Map<string, { decision: string; by: string; rule: string }>();
  const known = viewOf(run).known;
  for (const e of known) {
    if (e.type === 'tool.started') started.add(e.payload.callId);
    if (e.type !== 'policy.decision') continue;
    decided.set(`${e.payload.turn}/${e.payload.step}/${e.payload.callId}`, e.payload);
    // The fallback decides as configured, either way (a deny where the policy says allow refuses work it permits).
    if (e.payload.by === 'default' && FALLBACK_RULES.has(e.payload.rule) && e.payload.decision !== fallbackOf(policy))
      return `call ${e.payload.callId} was decided ${e.payload.decision} by default (${e.payload.rule}), but the policy's fallback (onAskWithoutApprover) is ${fallbackOf(policy)}`;
    if (e.payload.decision === 'allow') allowed.set(e.payload.callId, { by: e.payload.by, rule: e.payload.rule });
  }
  for (const e of known) {
    if (e.type !== 'assistant.message') continue;
    for (const block of (e as Extract<LogEvent, { type: 'assistant.message' }>).payload.content) {
      if (block.type !== 'tool_call') continue;
      const args: CallArgs = { value: block.args };
      const decision = allowed.get(block.id);
      const unasked = decision && registered.has(block.name) ? allowedWithoutAsking(policy, block.name, registered.get(block.name), decision, args) : undefined;
      if (unasked) return `call ${block.id} to ${block.name}: ${unasked}`;
      const ruled =
        registered.has(block.name) && !hiddenBy(visibility, block.name) ? deniedByRule(policy, block.name, registered.get(block.name), args) : undefined;
      // Keyed by turn and step too: a model may give calls in different steps the same id.
      const by = decided.get(`${e.payload.turn}/${e.payload.step}/${block.id}`);
      // A deny rule decides alone: the call is never put to the approver (nor to the no-approver fallback), whatever it would
      // answer. (A layer or a budget may refuse it first.)
      if (ruled && by && by.by !== 'visibility' && by.by !== 'budget' && (by.decision !== 'deny' || by.by !== 'policy')) {
        return `call ${block.id} to ${block.name}: ${ruled}, but it was decided ${by.decision} by ${by.by} (${by.rule}), not denied by a rule`;
      }
      const why = !registered.has(block.name)
        ? 'no such tool is registered'
        : (hiddenBy(visibility, block.name) ?? deniedByPolicy(policy, approver, block.name, registered.get(block.name), args));
      if (!why) continue;
      if (started.has(block.id)) return `call ${block.id} to ${block.name} ran, but ${why}`;
      if (allowed.has(block.id)) return `call ${block.id} to ${block.name} was allowed, but ${why}`;
    }
  }
  return undefined;
}
