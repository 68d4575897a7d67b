/**
 * The before stage's decision (seed 000 §5, seed 001 §2.8): rules per tool name
 * (optionally per side-effect level and a predicate on the arguments) say allow,
 * deny or ask. Asking a human is an optional dependency: without an approver the
 * configured default applies (deny unless configured otherwise) instead of a hang.
 *
 * Rules are combined most-restrictive-first, independent of their order: any
 * matching deny wins, then any ask, then any allow — so adding an allow rule can
 * never re-open what another rule denies (the spirit of invariant 7).
 */
import type { Clock } from '../clock.ts';
import { MAX_TIMEOUT_MS, TIMEOUT_TOO_LONG } from '../timer-wheel.ts';
import type { SpanHandle } from '../trace/tracer.ts';
import { nameMatcher } from './glob.ts';
import type { ApprovalRequest, Approver, PolicyDecision, SideEffect, ToolCallRecorder } from './types.ts';

export type PolicyVerdict = 'allow' | 'deny' | 'ask';

export interface PolicyRule {
  /** Reported as the decision's `rule`. */
  readonly id: string;
  /** Tool names or `*` patterns; absent means every tool. */
  readonly tools?: readonly string[];
  /** Only for tools of these side-effect levels; absent means every level. */
  readonly sideEffects?: readonly SideEffect[];
  /**
   * Only when this holds for the (validated, frozen) arguments. A predicate that
   * throws, or answers other than a boolean (a promise is never awaited; an
   * `async` function is refused when the policy is built), counts as matching
   * for deny and ask rules and as not matching for allow rules: an error never
   * opens a door.
   */
  readonly when?: (args: unknown) => boolean;
  readonly decision: PolicyVerdict;
  /** For deny: told to the model. For ask: shown to the approver. */
  readonly reason?: string;
}

export interface ToolPolicy {
  readonly rules?: readonly PolicyRule[];
  /** When no rule matches. Default `allow`. */
  readonly default?: PolicyVerdict;
  /** When a rule says ask and there is no approver (or it timed out). Default `deny`. */
  readonly onAskWithoutApprover?: 'allow' | 'deny';
  /** Give up waiting for the approver after this long and apply `onAskWithoutApprover`. Default: wait (until aborted). */
  readonly approvalTimeoutMs?: number;
}

export interface RuleVerdict {
  readonly verdict: PolicyVerdict;
  /** A rule id, or `no_matching_rule` when the default applied. */
  readonly rule: string;
  readonly reason?: string;
}

const STRICTNESS: Record<PolicyVerdict, number> = { allow: 0, ask: 1, deny: 2 };
const LEVELS: readonly SideEffect[] = ['NONE', 'IDEMPOTENT', 'STATEFUL', 'CRITICAL'];

export function checkPolicy(policy: ToolPolicy): void {
  const verdicts = ['allow', 'deny', 'ask'];
  const seen = new Set<string>();
  (policy.rules ?? []).forEach((rule, i) => {
    const where = `policy rule ${typeof rule?.id === 'string' && rule.id ? `"${rule.id}"` : `#${i}`}`;
    if (typeof rule?.id !== 'string' || rule.id === '') throw new Error(`${where}: id must be a non-empty string`);
    if (seen.has(rule.id)) throw new Error(`${where}: id is used by another rule; ids must be unique (they name decisions in the log)`);
    seen.add(rule.id);
    if (!verdicts.includes(rule.decision)) throw new Error(`${where}: decision must be allow, deny or ask (got ${JSON.stringify(rule.decision)})`);
    if (rule.tools !== undefined && (!Array.isArray(rule.tools) || rule.tools.some((t) => typeof t !== 'string' || t === ''))) {
      throw new Error(`${where}: tools must be a list of non-empty tool names or patterns`);
    }
    // An empty list matches no call: a deny written so never denies anything (outside probe 62, LOW-1).
    if (rule.tools?.length === 0)
      throw new Error(`${where}: tools is empty, so the rule matches no call; name a tool or a pattern, or leave tools out to match every tool`);
    if (rule.sideEffects !== undefined) {
      // A level one letter off (CRITCAL) would match no call: a deny that never denies.
      if (!Array.isArray(rule.sideEffects)) throw new Error(`${where}: sideEffects must be a list of side-effect levels (${LEVELS.join(', ')})`);
      rule.sideEffects.forEach((level, j) => {
        if (!LEVELS.includes(level)) throw new Error(`${where}: sideEffects[${j}] must be one of ${LEVELS.join(', ')} (got ${JSON.stringify(level)})`);
      });
      if (rule.sideEffects.length === 0)
        throw new Error(
          `${where}: sideEffects is empty, so the rule matches no call; name a level (${LEVELS.join(', ')}), or leave sideEffects out to match every level`,
        );
    }
    if (rule.when !== undefined && typeof rule.when !== 'function') throw new Error(`${where}: when must be a function`);
    // Decided at once, never awaited: an async predicate's promise would count as a failed predicate on every call.
    if (rule.when?.constructor?.name === 'AsyncFunction') {
      throw new Error(`${where}: when must answer a boolean at once; an async function answers a promise, which is never awaited`);
    }
  });
  if (policy.default !== undefined && !verdicts.includes(policy.default)) {
    throw new Error(`policy default must be allow, deny or ask (got ${JSON.stringify(policy.default)})`);
  }
  if (policy.onAskWithoutApprover !== undefined && policy.onAskWithoutApprover !== 'allow' && policy.onAskWithoutApprover !== 'deny') {
    throw new Error(`policy onAskWithoutApprover must be allow or deny (got ${JSON.stringify(policy.onAskWithoutApprover)})`);
  }
  if (policy.approvalTimeoutMs !== undefined && !(Number.isFinite(policy.approvalTimeoutMs) && policy.approvalTimeoutMs > 0)) {
    throw new Error(`policy approvalTimeoutMs must be a positive number of milliseconds (got ${String(policy.approvalTimeoutMs)})`);
  }
  if (policy.approvalTimeoutMs !== undefined && policy.approvalTimeoutMs > MAX_TIMEOUT_MS) {
    throw new Error(`policy approvalTimeoutMs ${TIMEOUT_TOO_LONG} (got ${String(policy.approvalTimeoutMs)})`);
  }
}

/** The rules' verdict for one call, before any approver is asked. */
export function evaluateRules(policy: ToolPolicy, call: { tool: string; sideEffect: SideEffect; args: unknown }): RuleVerdict {
  let best: PolicyRule | undefined;
  for (const rule of policy.rules ?? []) {
    if (!matches(rule, call)) continue;
    if (!best || STRICTNESS[rule.decision] > STRICTNESS[best.decision]) best = rule;
  }
  if (!best) return { verdict: policy.default ?? 'allow', rule: 'no_matching_rule' };
  return best.reason === undefined ? { verdict: best.decision, rule: best.id } : { verdict: best.decision, rule: best.id, reason: best.reason };
}

function matches(rule: PolicyRule, call: { tool: string; sideEffect: SideEffect; args: unknown }): boolean {
  if (rule.tools && !nameMatcher(rule.tools)(call.tool)) return false;
  if (rule.sideEffects && !rule.sideEffects.includes(call.sideEffect)) return false;
  if (!rule.when) return true;
  let answer: unknown;
  try {
    answer = rule.when(call.args);
  } catch {
    return rule.decision !== 'allow';
  }
  if (typeof answer === 'boolean') return answer;
  // Not a boolean (held to no type in JavaScript): a failed predicate too. A promise — an async predicate, never
  // awaited here — is the likeliest; taken as "no", a deny rule with one would never deny. Its rejection is its own.
  if (typeof (answer as { then?: unknown } | null)?.then === 'function') Promise.resolve(answer).catch(() => {});
  return rule.decision !== 'allow';
}

/** A final decision, plus what the pipeline needs to tell the model. */
export interface PolicyOutcome extends PolicyDecision {
  readonly reason?: string;
  /** Denied because the call was cancelled while waiting for the approver. */
  readonly cancelled?: boolean;
  /** Not decided: the call had to be asked about, and the store refused the records that hold it (this error). */
  readonly notRecorded?: unknown;
}

export interface DecideInput {
  readonly policy: ToolPolicy;
  readonly approver?: Approver | undefined;
  readonly clock: Clock;
  readonly signal: AbortSignal;
  /** What the approver is shown (arguments already redacted by the caller). */
  readonly request: Omit<ApprovalRequest, 'reason'>;
  /** The validated arguments, for rule predicates. */
  readonly args: unknown;
  /** Settles once the call is stored, rejecting if the store refused it: awaited before the approver is asked. */
  readonly beforeAsking?: (() => Promise<void> | void) | undefined;
}

/**
 * The decision for every call when the policy has no rules and its default is not
 * `ask`: the same for all (frozen), so a pipeline can take it without deciding.
 * Undefined when calls must be decided one by one.
 */
export function fixedDecision(policy: ToolPolicy): PolicyOutcome | undefined {
  if ((policy.rules ?? []).length > 0) return undefined;
  const verdict = policy.default ?? 'allow';
  if (verdict === 'ask') return undefined;
  return Object.freeze({ decision: verdict, by: 'default', rule: 'no_matching_rule' });
}

/** Rules, then (for ask) the approver. Never rejects. */
export async function decide(input: DecideInput): Promise<PolicyOutcome> {
  return decideNow(input);
}

/**
 * `decide`, answered at once when no approver is asked (the rules decide, or
 * there is none to ask): a promise only while an approver is being waited for.
 * Never throws, never rejects.
 */
export function decideNow(input: DecideInput): PolicyOutcome | Promise<PolicyOutcome> {
  const { policy, request } = input;
  const verdict = evaluateRules(policy, { tool: request.tool, sideEffect: request.sideEffect, args: input.args });
  const by = verdict.rule === 'no_matching_rule' ? 'default' : 'policy';
  if (verdict.verdict === 'allow') return { decision: 'allow', by, rule: verdict.rule };
  if (verdict.verdict === 'deny') return withReason({ decision: 'deny', by, rule: verdict.rule }, verdict.reason);

  const fallback = policy.onAskWithoutApprover ?? 'deny';
  if (!input.approver) return { decision: fallback, by: 'default', rule: 'no_approver', reason: 'approval is required and no approver is configured' };
  if (input.signal.aborted) return cancelled();

  const reason = verdict.reason ?? `rule "${verdict.rule}" requires approval`;
  const approver = input.approver;
  const ask = () =>
    askApprover(approver, { ...request, reason }, input.clock, input.signal, policy.approvalTimeoutMs).then((answer) =>
      answered(answer, verdict.rule, fallback),
    );
  // No one is asked about a call the store does not hold: the production host stores a step behind the loop.
  let stored: Promise<void> | void;
  try {
    stored = input.beforeAsking?.();
  } catch (error) {
    return notRecorded(error);
  }
  if (stored === undefined) return ask();
  return Promise.resolve(stored).then(
    () => (input.signal.aborted ? cancelled() : ask()),
    (error: unknown) => notRecorded(error),
  );
}

function notRecorded(error: unknown): PolicyOutcome {
  return { decision: 'deny', by: 'default', rule: 'not_recorded', reason: 'the store refused the record of the call', notRecorded: error };
}

/** The decision the approver's answer makes for a call an ask rule (`rule`) matched. */
function answered(answer: ApproverAnswer, rule: string, fallback: 'allow' | 'deny'): PolicyOutcome {
  switch (answer.kind) {
    case 'approve':
      return { decision: 'allow', by: 'approver', rule };
    case 'deny':
      return { decision: 'deny', by: 'approver', rule, reason: 'the approver denied this call' };
    case 'cancelled':
      return cancelled();
    case 'timeout':
      return { decision: fallback, by: 'default', rule: 'approval_timeout', reason: 'no answer from the approver in time' };
    case 'invalid':
      return { decision: 'deny', by: 'approver', rule: 'approver_invalid_answer', reason: `the approver answered ${answer.detail}` };
    case 'error':
      return { decision: 'deny', by: 'approver', rule: 'approver_error', reason: `the approver failed: ${answer.detail}` };
  }
}

function cancelled(): PolicyOutcome {
  return { decision: 'deny', by: 'approver', rule: 'cancelled', reason: 'the call was cancelled while waiting for approval', cancelled: true };
}

function withReason(decision: PolicyDecision, reason: string | undefined): PolicyOutcome {
  return reason === undefined ? decision : { ...decision, reason };
}

type ApproverAnswer = { kind: 'approve' | 'deny' | 'cancelled' | 'timeout' } | { kind: 'invalid' | 'error'; detail: string };

/** Races the approver against abort and the optional timeout; the first to answer wins. */
function askApprover(approver: Approver, request: ApprovalRequest, clock: Clock, signal: AbortSignal, timeoutMs: number | undefined): Promise<ApproverAnswer> {
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  return new Promise<ApproverAnswer>((resolve) => {
    let done = false;
    const settle = (answer: ApproverAnswer) => {
      if (done) return;
      done = true;
      signal.removeEventListener('abort', onAbort);
      stop.abort('settled'); // releases the timer and tells a still-open approval UI to close
      resolve(answer);
    };
    stop.signal.addEventListener('abort', () => settle({ kind: 'cancelled' }), { once: true });
    if (timeoutMs !== undefined) {
      clock.sleep(timeoutMs, stop.signal).then(
        () => settle({ kind: 'timeout' }),
        () => settle({ kind: 'timeout' }),
      );
    }
    Promise.resolve()
      .then(() => approver.approve(request, stop.signal))
      .then(
        (answer) =>
          settle(answer === 'approve' || answer === 'deny' ? { kind: answer } : { kind: 'invalid', detail: JSON.stringify(answer) ?? String(answer) }),
        (error: unknown) => settle({ kind: 'error', detail: error instanceof Error ? error.message : String(error) }),
      );
  });
}

/** The `policy` span of one decision, opened before deciding so it covers the wait for an approver. */
export function openPolicySpan(parent: SpanHandle | undefined, call: { callId: string; tool: string }): SpanHandle | undefined {
  return parent?.child('policy', `policy ${call.tool}`, { tool: call.tool, callId: call.callId });
}

/** Reports one decision to the recorder and ends its span. */
export function reportDecision(
  recorder: ToolCallRecorder,
  span: SpanHandle | undefined,
  call: { callId: string; tool: string },
  decision: PolicyOutcome,
): void {
  // A decision with nothing more than its three fields is its own record (and span attributes).
  const record: PolicyDecision =
    decision.reason === undefined && decision.cancelled === undefined ? decision : { decision: decision.decision, by: decision.by, rule: decision.rule };
  span?.end(decision.cancelled ? 'cancelled' : 'ok', record === decision ? record : { decision: record.decision, by: record.by, rule: record.rule });
  recorder.policy(call.callId, call.tool, record);
}
