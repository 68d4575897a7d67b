/** Invariant 12: providers never reject (nor settle malformed, nor stream after settling); the loop never throws; tools always settle. */
import { nothingThrown } from '../../harness/checks/invariants.ts';
import { everythingSettles } from '../checks/provider-contract.ts';
import { defineProperty, firstViolation, verdictOf } from '../property.ts';

export const nothingRejectsProperty = defineProperty({
  name: 'invariant-12-nothing-rejects',
  title: 'providers never reject, the loop never throws, tools always settle',
  invariant: 12,
  check: (run) =>
    firstViolation(
      () => verdictOf(nothingThrown(run)),
      () => everythingSettles(run),
    ),
});
