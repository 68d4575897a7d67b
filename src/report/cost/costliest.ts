/** The cases with a cost, costliest first (unknown costs first of all: they need a price), by id among equals. */
import { compareIds } from '../format.ts';
import type { CaseCost, CaseResult } from '../results.ts';

export function costliest(cases: readonly CaseResult[]): (CaseResult & { readonly metrics: { readonly cost: CaseCost } })[] {
  return cases
    .filter((c): c is CaseResult & { metrics: { cost: CaseCost } } => c.metrics?.cost !== undefined)
    .sort(
      (a, b) =>
        Number(b.metrics.cost.unpricedCalls > 0) - Number(a.metrics.cost.unpricedCalls > 0) ||
        b.metrics.cost.amount - a.metrics.cost.amount ||
        compareIds(a.id, b.id),
    );
}
