/** Invariant 4: every opened turn closes exactly once, with an outcome from the alphabet, in the log, the results and the trace. */
import { turnsClosedOnce } from '../../harness/checks/invariants.ts';
import { tracesCarryOutcomes } from '../checks/trace-outcomes.ts';
import { outcomesInAlphabet } from '../checks/outcome-alphabet.ts';
import { defineProperty, firstViolation, verdictOf } from '../property.ts';

export const turnsClosedOnceProperty = defineProperty({
  name: 'invariant-04-turns-closed-once',
  title: 'every opened turn is closed exactly once with an outcome from the alphabet',
  invariant: 4,
  check: (run) =>
    firstViolation(
      () => verdictOf(turnsClosedOnce(run)),
      () => outcomesInAlphabet(run),
      () => tracesCarryOutcomes(run),
    ),
});
