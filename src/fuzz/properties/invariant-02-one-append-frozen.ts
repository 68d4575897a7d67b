/**
 * Invariant 2: one append entry point; bad payloads, bad positions and re-entrant
 * appends are refused (probed on a copy of the run's final log); stored events are
 * frozen; the store holds exactly the log.
 */
import { persistedHistory, storedEventsFrozen } from '../../harness/checks/invariants.ts';
import { appendProbes } from '../checks/append-probes.ts';
import { defineProperty, firstViolation, verdictOf } from '../property.ts';

export const oneAppendFrozenProperty = defineProperty({
  name: 'invariant-02-one-append-frozen',
  title: 'one validated append; bad payloads, positions and re-entrant appends refused; stored events frozen',
  invariant: 2,
  check: (run) =>
    firstViolation(
      () => verdictOf(storedEventsFrozen(run)),
      () => verdictOf(persistedHistory(run)),
      () => appendProbes(run),
    ),
});
