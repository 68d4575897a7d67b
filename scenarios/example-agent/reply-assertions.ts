/**
 * The example agent's reply predicates (loopgate.config.ts `assertions`): code
 * a scenario names with `expect.assert: [{ assertion: NAME }]`. Each returns
 * true, or a string saying why the reply fails.
 */
import type { AssertionRun, ReplyPredicate } from '../../src/harness/checks/reply-assertion-types.ts';

/** The amounts the case's refunds were issued for, read from the log. */
function refundedAmounts(run: AssertionRun): number[] {
  const amounts: number[] = [];
  for (const e of run.events) {
    if (e.type !== 'tool.started') continue;
    const p = e.payload as { name?: string; attempt?: number; args?: { amount?: unknown } };
    if (p.name === 'issue_refund' && p.attempt === 1 && typeof p.args?.amount === 'number') amounts.push(p.args.amount);
  }
  return amounts;
}

/** A reply about a refund states the amount that was refunded (120, 120.0 or 120.00), and no refund is claimed that did not happen. */
export const refundAmountMatches: ReplyPredicate = (reply, run) => {
  const amounts = refundedAmounts(run);
  if (amounts.length === 0) return /refunded/i.test(reply) ? 'the reply says a refund was made, but no refund ran' : true;
  const stated = [...reply.matchAll(/(\d+(?:\.\d{1,2})?)/g)].map((m) => Number(m[1]));
  const missing = amounts.filter((a) => !stated.includes(a));
  return missing.length === 0 || `the reply does not state the refunded amount ${missing.join(', ')} (it states: ${stated.join(', ') || 'no amount'})`;
};

export const SUPPORT_ASSERTIONS = { 'refund-amount-matches': refundAmountMatches } as const;
