/**
 * Invariant 2: one append entry point; bad payloads, bad positions and re-entrant
 * appends are refused (probed on a copy of the run's final log); stored events are
 * frozen; the store holds exactly the log (`loopgate run` also decodes every
 * stored record: see store-equals-log.ts for why the fuzzer compares instead).
 */
import { storedEventsFrozen } from '../../harness/checks/invariants.ts';
import { appendProbes } from '../checks/append-probes.ts';
import { storeEqualsLog } from '../checks/store-equals-log.ts';
import { defineProperty, firstViolation, verdictOf } from '../property.ts';

export const oneAppendFrozenProperty = defineProperty({
  name: 'invariant-02-one-append-frozen',
  title: 'one validated append; bad payloads, positions and re-entrant appends refused; stored events frozen',
  invariant: 2,
  check: (run) =>
    firstViolation(
      () => verdictOf(storedEventsFrozen(run)),
      () => storeEqualsLog(run),
      () => appendProbes(run),
    ),
});
