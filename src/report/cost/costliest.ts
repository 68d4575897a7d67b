/** The cases with a cost, costliest first (unknown costs first of all: unpriced calls need a price, uncounted ones a look), by id among equals. */
import { compareIds } from '../format.ts';
import type { CaseCost, CaseResult } from '../results.ts';

export function costliest(cases: readonly CaseResult[]): (CaseResult & { readonly metrics: { readonly cost: CaseCost } })[] {
  return cases
    .filter((c): c is CaseResult & { metrics: { cost: CaseCost } } => c.metrics?.cost !== undefined)
    .sort(
      (a, b) => Number(unknown(b.metrics.cost)) - Number(unknown(a.metrics.cost)) || b.metrics.cost.amount - a.metrics.cost.amount || compareIds(a.id, b.id),
    );
}

/** Some of the cost is unknown: calls to a model without a price, or with a token count ≥ 2^53 − 1. */
export function unknown(cost: CaseCost): boolean {
  return cost.unpricedCalls > 0 || (cost.uncountedCalls ?? 0) > 0;
}
