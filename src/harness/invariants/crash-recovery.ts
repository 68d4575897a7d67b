/**
 * A process crash at any event, then a reopen: nothing committed is lost, the
 * open turn closes `interrupted`, every call is answered (started STATEFUL and
 * CRITICAL ones as `unknown`, never run again), unseen messages go back to the
 * inbox — and the loop carries on. With a crash point (fuzz cases), the store is a
 * real SQLite file reopened from disk and the loop resumes on it; without one, the
 * crash is simulated in memory at every point the store could have been left in
 * (up to `crashPoints` of them, spread evenly).
 */
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { crashReopenResume } from './support/crash-reopen.ts';
import { crashRecoveryAtEveryEvent } from './support/recover-and-check.ts';

export const crashRecovery = defineInvariant({
  id: 'crash-recovery',
  title: 'a crash at any event recovers cleanly from the store and the loop resumes',
  appliesTo: loopgateOnly('no event store to crash and recover: a peer keeps none'),
  check: (run, context) => (context.crashAt !== undefined ? crashReopenResume(run, context.crashAt) : crashRecoveryAtEveryEvent(run, context.crashPoints)),
});
