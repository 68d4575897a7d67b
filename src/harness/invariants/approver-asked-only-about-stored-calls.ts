/**
 * A human is asked to approve only a call the store already holds: the model's
 * call (its `assistant.message`) is stored before the approver is asked. The
 * production host writes a step behind the loop (group commit); a call whose
 * write the store then refuses is never run (NOT_RECORDED) — asking someone to
 * approve it wastes their decision on a call that will not happen, and the
 * approval names a call no record will ever show (outside probe 7, F6). The run
 * reads the store as each request is put to the approver
 * (world/recorded-approver.ts).
 */
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';

export const approverAskedOnlyAboutStoredCalls = defineInvariant({
  id: 'approver-asked-only-about-stored-calls',
  title: 'the approver is asked only about a call the store holds: the step that made it is stored first',
  appliesTo: loopgateOnly("a peer's approval hook is its own: when it was asked is not recorded"),
  check: (run: ScenarioRun) => {
    const unstored = run.approvals.find((a) => a.storedWhenAsked === false);
    return unstored
      ? `the approver was asked about call ${unstored.callId} (${unstored.tool}) before the store held the step that made it (the model's call): a write the store then refused leaves a decision about a call that never runs`
      : undefined;
  },
});
