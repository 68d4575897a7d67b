/**
 * Each model call of a timeline with what it cost: a call entry (pointing at
 * its request by index) gets its model and the amount in its data, or
 * `unpriced` naming the model the price table has no price for, or `uncounted`
 * when its usage held a token count ≥ 2^53 − 1 (its cost is unknown).
 */
import type { CallCost } from '../report/cost/cost-of-log.ts';
import { isUncounted, isUnpriced } from '../report/cost/cost-of-log.ts';
import { formatMoney } from '../report/cost/format-cost.ts';
import type { TimelineEntry } from '../report/results.ts';

export function withCallCosts(timeline: readonly TimelineEntry[], calls: readonly CallCost[], currency: string): TimelineEntry[] {
  const byRequest = new Map(calls.map((c) => [c.request, c]));
  return timeline.map((entry) => {
    const call = entry.kind === 'model_call' && entry.request !== undefined ? byRequest.get(entry.request) : undefined;
    if (!call) return entry;
    const data = entry.data !== null && typeof entry.data === 'object' ? (entry.data as Record<string, unknown>) : {};
    const cost = isUncounted(call)
      ? { uncounted: 'a token count ≥ 2^53 − 1: cost unknown' }
      : isUnpriced(call)
        ? { unpriced: `no price for ${call.model}` }
        : call.amount !== undefined
          ? { cost: formatMoney(call.amount, currency) }
          : {};
    return { ...entry, data: { ...data, model: call.model, ...cost } };
  });
}
