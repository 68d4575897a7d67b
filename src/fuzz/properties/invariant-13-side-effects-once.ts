/** Invariant 13: a STATEFUL or CRITICAL call is never executed twice for one call id (after a crash: see crash-recovery). */
import { sideEffectsAtMostOnce } from '../../harness/checks/invariants.ts';
import { sideEffectsStartedOnce } from '../checks/side-effects.ts';
import { defineProperty, firstViolation, verdictOf } from '../property.ts';

export const sideEffectsOnceProperty = defineProperty({
  name: 'invariant-13-side-effects-once',
  title: 'a STATEFUL or CRITICAL call id never executes twice',
  invariant: 13,
  check: (run) =>
    firstViolation(
      () => verdictOf(sideEffectsAtMostOnce(run)),
      () => sideEffectsStartedOnce(run),
    ),
});
