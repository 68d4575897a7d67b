/**
 * A team's tool policy as the loop applies it: `contract:policy/<id>`.
 *
 * A rule's `when` is a team's predicate on the call's arguments. Typed to answer
 * a boolean, one written in JavaScript, or cast, may answer anything: a promise
 * (a predicate that calls a service — `when: (args) => flags.check(args)` — the
 * likeliest; an `async` function is refused when the agent is built), a truthy
 * text, a number, nothing. The policy's own rule for a predicate that
 * fails is that an error never opens a door: a deny or ask rule matches, an allow
 * rule does not. An answer that is not a boolean is such a failure; taken as "no",
 * a deny rule whose predicate answers a promise never denies anything.
 */
import { z } from 'zod';
import { call, reply, toolUse } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { AgentLoop, decide, defineTool, EventLog, loopDeps, type Approver, type PolicyRule, type ToolPolicy } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';
import { VirtualClock } from './virtual-clock.ts';

/** One refund the model asks for under `policy`: whether it ran, and the policy's decision on it (decision/by/rule). */
async function oneRefund(policy: ToolPolicy): Promise<string> {
  let runs = 0;
  const refund = defineTool({
    name: 'issue_refund',
    description: 'Refund an order.',
    input: z.object({ order_id: z.string() }),
    sideEffect: 'STATEFUL',
    run: () => {
      runs++;
      return { refunded: true };
    },
  });
  const clock = new VirtualClock();
  const log = new EventLog(clock);
  const model = new ScriptedModelClient([toolUse([call('r1', 'issue_refund', { order_id: 'ORD-1002' })]), reply('Done.')], { clock });
  try {
    const loop = new AgentLoop(loopDeps({ log, model, agent: { tools: [refund], policy }, clock }));
    loop.send('Refund ORD-1002.', { id: 'ask' });
    await clock.run(loop.drain());
  } catch (error) {
    return `threw: ${(error as Error).message}`;
  }
  const decisions = log.events
    .filter((e) => e.type === 'policy.decision')
    .map((e) => {
      const p = e.payload as { decision: string; by: string; rule: string };
      return `${p.decision}/${p.by}/${p.rule}`;
    });
  return `ran ${runs} time(s), ${decisions.join(', ') || 'no decision'}`;
}

async function predicateAnsweringOtherThanABooleanNeverOpensADoor(): Promise<CheckResult[]> {
  const answers: [string, () => unknown][] = [
    // A plain function returning a promise (an `async` one is refused when the agent is built: contract:agent/policy/rule-when-async).
    ['a promise of true', () => Promise.resolve(true)],
    ['a promise of false', () => Promise.resolve(false)],
    ['a text', () => 'yes'],
    ['a number', () => 1],
    ['nothing', () => undefined],
  ];
  const checks: CheckResult[] = [];
  for (const [what, when] of answers) {
    // A deny rule: the failure matches it, the refund is denied by it.
    const deny: PolicyRule = { id: 'no-refunds-on-flagged-orders', tools: ['issue_refund'], decision: 'deny', when: when as never, reason: 'flagged' };
    const denied = await oneRefund({ rules: [deny] });
    const wantDenied = 'ran 0 time(s), deny/policy/no-refunds-on-flagged-orders';
    checks.push({ name: `deny rule, ${what}: denied by it`, passed: denied === wantDenied, message: denied, expected: wantDenied, actual: denied });
    // An allow rule under a default deny: the failure does not match it, the default denies.
    const allow: PolicyRule = { id: 'refunds-within-limit', tools: ['issue_refund'], decision: 'allow', when: when as never };
    const defaulted = await oneRefund({ rules: [allow], default: 'deny' });
    const wantDefault = 'ran 0 time(s), deny/default/no_matching_rule';
    checks.push({
      name: `allow rule, ${what}: not matched, the default denies`,
      passed: defaulted === wantDefault,
      message: defaulted,
      expected: wantDefault,
      actual: defaulted,
    });
  }
  // Control: a boolean is taken as it is.
  const yes = await oneRefund({ rules: [{ id: 'no-refunds', tools: ['issue_refund'], decision: 'deny', when: () => true }] });
  const no = await oneRefund({ rules: [{ id: 'no-refunds', tools: ['issue_refund'], decision: 'deny', when: () => false }] });
  const control = `${yes}; ${no}`;
  const wantControl = 'ran 0 time(s), deny/policy/no-refunds; ran 1 time(s), allow/default/no_matching_rule';
  checks.push({ name: 'control: true matches, false does not', passed: control === wantControl, message: control, expected: wantControl, actual: control });
  return checks;
}

/**
 * `decide` (exported: a team's own executor may call it) and the approver it asks.
 * The approver is told, through its signal, once the decision no longer needs it
 * — timed out, or answered — so an approval UI or pager waiting on that signal
 * closes, and a human cannot approve a call already decided. And a call whose
 * turn is already cancelled is never put to the approver at all: asked anyway,
 * the approver's signal (listening to an abort that already happened) is never
 * aborted, and its "approve" would open the call (outside probe 24, Q03 and Q05;
 * inside the loop the pipeline checks first, which hid both).
 */
async function approverToldWhenDecided(): Promise<CheckResult[]> {
  const ask: ToolPolicy = { rules: [{ id: 'refunds-ask', tools: ['issue_refund'], decision: 'ask' }], approvalTimeoutMs: 50 };
  const request = { callId: 'r1', tool: 'issue_refund', args: { order_id: 'ORD-1002' }, sideEffect: 'STATEFUL' as const };
  const signals: AbortSignal[] = [];
  const approver = (answer: 'approve' | 'never'): Approver => ({
    approve: (_request, signal) => {
      signals.push(signal);
      return answer === 'approve' ? Promise.resolve('approve') : new Promise<never>(() => {});
    },
  });
  const decideWith = async (answer: 'approve' | 'never', signal: AbortSignal) => {
    signals.length = 0;
    const clock = new VirtualClock();
    const outcome = await clock.run(decide({ policy: ask, approver: approver(answer), clock, signal, request, args: request.args }));
    return `${outcome.decision}/${outcome.by}/${outcome.rule}; asked ${signals.length}; the approver's signal ${signals.map((s) => (s.aborted ? 'aborted' : 'open')).join(', ') || '-'}`;
  };
  // A team's clock whose sleep fails (outside the Clock contract, which says it never rejects: say a test clock torn
  // down under a waiting call): the wait is over all the same, read as the timeout, and decide still decides
  // (mutation seed 49, policy.ts:251: the failure settled an answer of no kind, and decide resolved no outcome).
  const brokenClock = async () => {
    signals.length = 0;
    const clock = { now: () => 0, sleep: () => Promise.reject(new Error('the clock was stopped')) };
    const outcome = await decide({ policy: ask, approver: approver('never'), clock, signal: new AbortController().signal, request, args: request.args });
    return `${outcome?.decision}/${outcome?.by}/${outcome?.rule}; asked ${signals.length}; the approver's signal ${signals.map((s) => (s.aborted ? 'aborted' : 'open')).join(', ') || '-'}`;
  };
  const clockFailed = await brokenClock();
  const timedOut = await decideWith('never', new AbortController().signal);
  const approved = await decideWith('approve', new AbortController().signal);
  const stopped = new AbortController();
  stopped.abort('the user cancelled the turn');
  const cancelled = await decideWith('approve', stopped.signal);
  const row = (name: string, got: string, want: string): CheckResult => ({ name, passed: got === want, message: got, expected: want, actual: got });
  return [
    row(
      "no answer in time: the policy's fallback, and the approver told it is over",
      timedOut,
      "deny/default/approval_timeout; asked 1; the approver's signal aborted",
    ),
    row('an answer: taken, and the approver told it is over', approved, "allow/approver/refunds-ask; asked 1; the approver's signal aborted"),
    row('a turn already cancelled: never put to the approver', cancelled, "deny/approver/cancelled; asked 0; the approver's signal -"),
    row(
      "a clock whose sleep fails before the approver answers: the policy's fallback as on a timeout, a decision all the same",
      clockFailed,
      "deny/default/approval_timeout; asked 1; the approver's signal aborted",
    ),
  ];
}

export function policyCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:policy/predicate-answering-other-than-a-boolean-never-opens-a-door',
        title:
          'policy: a rule predicate answering other than a boolean (a promise, a text, nothing) counts as failed: a deny rule matches, an allow rule does not',
        file: 'src/harness/policy-cases.ts',
      },
      predicateAnsweringOtherThanABooleanNeverOpensADoor,
    ),
    checksCase(
      {
        id: 'contract:policy/approver-told-when-decided-never-asked-once-cancelled',
        title: 'policy: decide() tells the approver (its signal) once the decision is made — timed out or answered — and never asks about a cancelled call',
        file: 'src/harness/policy-cases.ts',
      },
      approverToldWhenDecided,
    ),
  ];
}
