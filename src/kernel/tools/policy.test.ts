import { describe, expect, it } from 'vitest';
import { checkPolicy, decide, evaluateRules, type DecideInput, type ToolPolicy } from './policy.ts';
import { VirtualClock } from '../../harness/virtual-clock.ts';
import { flush } from '../../../test/support/tool-doubles.ts';
import type { ApprovalRequest, Approver } from './types.ts';

const request = { callId: 'c1', tool: 'transfer', args: { amount: 5 }, sideEffect: 'CRITICAL' as const };

function input(policy: ToolPolicy, extra: Partial<DecideInput> = {}): DecideInput {
  return { policy, clock: new VirtualClock(), signal: new AbortController().signal, request, args: request.args, ...extra };
}

/** An approver whose answer the test gives when it wants to. */
function pendingApprover() {
  const asked: { request: ApprovalRequest; signal: AbortSignal; answer: (a: 'approve' | 'deny') => void }[] = [];
  const approver: Approver = {
    approve: (req, signal) => new Promise((resolve) => asked.push({ request: req, signal, answer: resolve })),
  };
  return { approver, asked };
}

describe('evaluateRules', () => {
  it('allows by default when no rule matches', () => {
    expect(evaluateRules({}, { tool: 'x', sideEffect: 'NONE', args: {} })).toEqual({ verdict: 'allow', rule: 'no_matching_rule' });
    expect(evaluateRules({ default: 'deny' }, { tool: 'x', sideEffect: 'NONE', args: {} }).verdict).toBe('deny');
  });

  it('matches by tool name or pattern, side-effect level and argument predicate', () => {
    const policy: ToolPolicy = {
      rules: [
        { id: 'big-transfers', tools: ['transfer'], when: (a) => (a as { amount: number }).amount > 100, decision: 'ask' },
        { id: 'no-deletes', tools: ['delete_*'], decision: 'deny', reason: 'deletes are disabled' },
        { id: 'critical', sideEffects: ['CRITICAL'], decision: 'ask' },
      ],
    };
    expect(evaluateRules(policy, { tool: 'transfer', sideEffect: 'STATEFUL', args: { amount: 500 } })).toEqual({ verdict: 'ask', rule: 'big-transfers' });
    expect(evaluateRules(policy, { tool: 'transfer', sideEffect: 'STATEFUL', args: { amount: 5 } }).verdict).toBe('allow');
    expect(evaluateRules(policy, { tool: 'delete_user', sideEffect: 'NONE', args: {} })).toEqual({
      verdict: 'deny',
      rule: 'no-deletes',
      reason: 'deletes are disabled',
    });
    expect(evaluateRules(policy, { tool: 'sms', sideEffect: 'CRITICAL', args: {} }).rule).toBe('critical');
  });

  it('most restrictive wins regardless of rule order: an allow never re-opens a deny', () => {
    const rules = [
      { id: 'allow-all', decision: 'allow' as const },
      { id: 'deny-x', tools: ['x'], decision: 'deny' as const },
      { id: 'ask-x', tools: ['x'], decision: 'ask' as const },
    ];
    expect(evaluateRules({ rules }, { tool: 'x', sideEffect: 'NONE', args: {} }).rule).toBe('deny-x');
    expect(evaluateRules({ rules: [...rules].reverse() }, { tool: 'x', sideEffect: 'NONE', args: {} }).rule).toBe('deny-x');
  });

  it('a throwing predicate never opens a door', () => {
    const boom = () => {
      throw new Error('boom');
    };
    expect(evaluateRules({ rules: [{ id: 'd', when: boom, decision: 'deny' }] }, { tool: 'x', sideEffect: 'NONE', args: {} }).verdict).toBe('deny');
    expect(evaluateRules({ default: 'deny', rules: [{ id: 'a', when: boom, decision: 'allow' }] }, { tool: 'x', sideEffect: 'NONE', args: {} }).verdict).toBe(
      'deny',
    );
  });
});

describe('checkPolicy', () => {
  it('refuses malformed policies, naming the rule', () => {
    expect(() => checkPolicy({ rules: [{ id: '', decision: 'deny' }] })).toThrow(/rule #0: id/);
    expect(() => checkPolicy({ rules: [{ id: 'r', decision: 'maybe' as never }] })).toThrow(/"r": decision must be/);
    expect(() =>
      checkPolicy({
        rules: [
          { id: 'r', decision: 'deny' },
          { id: 'r', decision: 'allow' },
        ],
      }),
    ).toThrow(/"r": id is used by another rule/);
    expect(() => checkPolicy({ onAskWithoutApprover: 'ask' as never })).toThrow(/onAskWithoutApprover/);
    expect(() => checkPolicy({ approvalTimeoutMs: -1 })).toThrow(/approvalTimeoutMs/);
  });
});

describe('decide', () => {
  const ask: ToolPolicy = { rules: [{ id: 'ask-transfer', tools: ['transfer'], decision: 'ask', reason: 'moves money' }] };

  it('reports allow and deny rules with who decided', async () => {
    expect(await decide(input({}))).toEqual({ decision: 'allow', by: 'default', rule: 'no_matching_rule' });
    expect(await decide(input({ rules: [{ id: 'ok', decision: 'allow' }] }))).toEqual({ decision: 'allow', by: 'policy', rule: 'ok' });
    expect(await decide(input({ rules: [{ id: 'no', decision: 'deny', reason: 'r' }] }))).toEqual({ decision: 'deny', by: 'policy', rule: 'no', reason: 'r' });
  });

  it('with no approver applies the default (deny) at once instead of waiting', async () => {
    // No clock advance, no answer: if decide waited, this await would never finish.
    expect(await decide(input(ask))).toMatchObject({ decision: 'deny', by: 'default', rule: 'no_approver' });
    expect(await decide(input({ ...ask, onAskWithoutApprover: 'allow' }))).toMatchObject({ decision: 'allow', by: 'default', rule: 'no_approver' });
  });

  it('asks the approver with the reason and follows its answer', async () => {
    const { approver, asked } = pendingApprover();
    const pending = decide(input(ask, { approver }));
    await flush();
    expect(asked).toHaveLength(1);
    expect(asked[0]!.request).toEqual({ ...request, reason: 'moves money' });
    asked[0]!.answer('approve');
    expect(await pending).toEqual({ decision: 'allow', by: 'approver', rule: 'ask-transfer' });

    const denied = decide(input(ask, { approver }));
    await flush();
    asked[1]!.answer('deny');
    expect(await denied).toMatchObject({ decision: 'deny', by: 'approver', rule: 'ask-transfer' });
  });

  it('an abort while waiting denies with rule "cancelled" and tells the approver to stop', async () => {
    const { approver, asked } = pendingApprover();
    const controller = new AbortController();
    const pending = decide(input(ask, { approver, signal: controller.signal }));
    await flush();
    controller.abort('user');
    expect(await pending).toMatchObject({ decision: 'deny', by: 'approver', rule: 'cancelled', cancelled: true });
    expect(asked[0]!.signal.aborted).toBe(true);
  });

  it('does not ask when already aborted', async () => {
    const { approver, asked } = pendingApprover();
    const controller = new AbortController();
    controller.abort();
    expect(await decide(input(ask, { approver, signal: controller.signal }))).toMatchObject({ rule: 'cancelled' });
    expect(asked).toHaveLength(0);
  });

  it('applies the default when the approver does not answer in time', async () => {
    const { approver } = pendingApprover();
    const clock = new VirtualClock();
    const pending = decide(input({ ...ask, approvalTimeoutMs: 1000 }, { approver, clock }));
    await flush();
    await clock.advance(1000);
    expect(await pending).toMatchObject({ decision: 'deny', by: 'default', rule: 'approval_timeout' });
    expect(clock.pendingTimers).toBe(0);
  });

  it('denies when the approver throws or answers nonsense', async () => {
    const throwing: Approver = { approve: async () => Promise.reject(new Error('ui down')) };
    expect(await decide(input(ask, { approver: throwing }))).toMatchObject({
      decision: 'deny',
      rule: 'approver_error',
      reason: expect.stringContaining('ui down'),
    });
    const nonsense: Approver = { approve: async () => 'yes' as never };
    expect(await decide(input(ask, { approver: nonsense }))).toMatchObject({ decision: 'deny', rule: 'approver_invalid_answer' });
    const syncThrow: Approver = {
      approve: () => {
        throw new Error('sync');
      },
    };
    expect(await decide(input(ask, { approver: syncThrow }))).toMatchObject({ decision: 'deny', rule: 'approver_error' });
  });
});
