/**
 * A process crash at any event, then a reopen: nothing committed is lost, the
 * open turn closes `interrupted`, every call is answered (started STATEFUL and
 * CRITICAL ones as `unknown`, never run again), unseen messages go back to the
 * inbox — and the loop carries on. With a crash point (fuzz cases), the store is a
 * real SQLite file reopened from disk and the loop resumes on it; without one, the
 * crash is simulated in memory at every point the store could have been left in
 * (up to `crashPoints` of them, spread evenly) — and, for `loopgate run`
 * (`reopenFromSqlite`), the whole log also goes through a real SQLite file, the
 * store production runs on: written in the batches it was committed in, reopened,
 * read back, resumed.
 */
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { crashReopenResume } from './support/crash-reopen.ts';
import { crashRecoveryAtEveryEvent } from './support/recover-and-check.ts';

export const crashRecovery = defineInvariant({
  id: 'crash-recovery',
  title: 'a crash at any event recovers cleanly from the store and the loop resumes',
  appliesTo: loopgateOnly('no event store to crash and recover: a peer keeps none'),
  check: async (run, context) => {
    if (context.crashAt !== undefined) return crashReopenResume(run, context.crashAt);
    const inMemory = crashRecoveryAtEveryEvent(run, context.crashPoints);
    if (inMemory !== undefined || !context.reopenFromSqlite) return inMemory;
    return crashReopenResume(run, run.log.length);
  },
});
