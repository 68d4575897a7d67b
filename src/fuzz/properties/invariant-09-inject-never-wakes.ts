/** Invariant 9: inject never wakes an idle loop; a taken message is never lost (returned on cancel) or delivered twice. */
import { inboxDeliveredOnce } from '../../harness/checks/invariants.ts';
import { injectNeverWakes } from '../checks/inject-never-wakes.ts';
import { defineProperty, firstViolation, verdictOf } from '../property.ts';

export const injectNeverWakesProperty = defineProperty({
  name: 'invariant-09-inject-never-wakes',
  title: 'inject never wakes an idle loop; a taken message is never lost or delivered twice',
  invariant: 9,
  check: (run) =>
    firstViolation(
      () => injectNeverWakes(run),
      () => verdictOf(inboxDeliveredOnce(run)),
    ),
});
