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
import { AgentLoop, defineTool, EventLog, loopDeps, type PolicyRule, type ToolPolicy } from '../kernel/index.ts';
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
  ];
}
