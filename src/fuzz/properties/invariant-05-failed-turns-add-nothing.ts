/** Invariant 5: failed turns add nothing to the projection; their events remain in the log. */
import { failedTurnsAddNothing } from '../../harness/checks/invariants.ts';
import { defineProperty, verdictOf } from '../property.ts';

export const failedTurnsAddNothingProperty = defineProperty({
  name: 'invariant-05-failed-turns-add-nothing',
  title: 'failed turns add nothing to the projection; their events stay in the log',
  invariant: 5,
  check: (run) => verdictOf(failedTurnsAddNothing(run)),
});
