/**
 * An approval waits exactly the policy's `approvalTimeoutMs`: the approver's
 * answer counts when it comes within that time after the request was put to it,
 * and once the time is up the call is decided by the policy's fallback
 * (`approval_timeout`) — not earlier, not later. A timeout that fires ten times
 * late lets an answer the policy no longer accepts decide the call (a refund
 * approved an hour after the operator's window closed); one that fires early
 * denies calls the approver was about to allow. The log alone cannot show it:
 * both write a decision as consistent as the right one. Judged on the virtual
 * clock against what the run recorded of each ask (when it was put, when the
 * approver was told to stop, when it answered):
 *
 * - a decision by the approver's answer (approve, deny, an invalid answer or a
 *   throw) was answered no later than the timeout;
 * - a decision `approval_timeout` came exactly at the timeout (the approver was
 *   told to stop then), and never while the approver had already answered.
 *
 * Judged in cases of one life (a dead process's timers never fire), with a policy
 * that sets `approvalTimeoutMs`; a cancelled ask is not judged.
 */
import type { LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';

export const approvalsTimeOutAsDeclared = defineInvariant({
  id: 'approvals-time-out-as-declared',
  title: "an approval waits exactly the policy's approvalTimeoutMs, on the virtual clock: an answer after it is not taken, and the timeout is not early",
  // A run that put nothing to an approver under a timeout judged nothing (review of stop 51: "held" over such runs).
  appliesTo: loopgateOnly("a peer's approval hook is its own: its asks are not recorded", (run) =>
    run.permissions.policy?.approvalTimeoutMs === undefined
      ? 'no policy sets approvalTimeoutMs'
      : run.approvals.length === 0
        ? 'nothing was put to an approver'
        : undefined,
  ),
  check: (run) => timedOutAsDeclared(run),
});

type Decision = Extract<LogEvent, { type: 'policy.decision' }>['payload'];

function timedOutAsDeclared(run: ScenarioRun): string | undefined {
  const limit = run.permissions.policy?.approvalTimeoutMs;
  if (limit === undefined || run.lives > 1 || run.thrown !== undefined) return undefined;
  // The decisions that waited on the approver, per call, in order: its answer taken, or the time run out.
  const decisions = new Map<string, Decision[]>();
  for (const e of run.log.events) {
    if (e.opaque || e.type !== 'policy.decision') continue;
    const d = (e as Extract<LogEvent, { type: 'policy.decision' }>).payload;
    if (d.by !== 'approver' && d.rule !== 'approval_timeout') continue;
    decisions.set(d.callId, [...(decisions.get(d.callId) ?? []), d]);
  }
  const asked = new Map<string, number>();
  for (const a of run.approvals) {
    const n = asked.get(a.callId) ?? 0;
    asked.set(a.callId, n + 1);
    const d = decisions.get(a.callId)?.[n];
    if (d === undefined || d.rule === 'cancelled') continue;
    const deadline = a.askedAt + limit;
    const where = `call ${a.callId} (${a.tool}), put to the approver at ${a.askedAt} ms with approvalTimeoutMs ${limit} ms`;
    if (d.rule === 'approval_timeout') {
      if (a.stoppedAt !== undefined && a.stoppedAt !== deadline)
        return `${where}: timed out at ${a.stoppedAt} ms, after ${a.stoppedAt - a.askedAt} ms, not at ${deadline} ms`;
      if (a.stoppedAt === undefined && a.at < deadline)
        return `${where}: the approver answered ${a.answer} at ${a.at} ms, in time, but the log records approval_timeout`;
      continue;
    }
    if (a.at > deadline)
      return `${where}: the approver answered ${a.answer} at ${a.at} ms, after the time ran out at ${deadline} ms, and the answer was taken (${d.decision} by the approver): the ask should have timed out then`;
  }
  return undefined;
}
