/**
 * A cancel stops the wait for a running tool: once a turn is cancelled, the loop
 * waits for none of its tool bodies still running — a body that never reads its
 * signal (a client call with no abort support) runs on, but the turn does not
 * wait for it. Each call whose body ran when the turn's `cancel.requested` was
 * written is answered at that moment (virtual time): its result is not written
 * later, at the body's own end or at its timeout. A loop whose cancel stopped
 * only the tool's signal, not its own wait, answered such a call `TIMEOUT` at the
 * tool's timeout — seconds or minutes after the user pressed stop — and every
 * other invariant held (outside probe 50, MED-1).
 *
 * From outside another loop (`checkObservable`): while a tool body of a cancelled
 * turn that was running at the cancel had not ended by then, the loop took time
 * before it handed back the turn — it waited for the body, to its own end or to a
 * timeout of its own. (One cut short by its signal ends at the cancel: no wait.)
 */
import type { LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, type PeerRun } from './invariant.ts';
import { viewOf } from './support/log-view.ts';

export const cancelStopsTheWait = defineInvariant({
  id: 'cancel-stops-the-wait',
  title: 'once a turn is cancelled, the loop waits for none of its running tool bodies: each such call is answered at the cancel',
  check: (run) => answeredAtTheCancel(run),
  checkObservable: (run) => closedWithoutWaiting(run),
});

function answeredAtTheCancel(run: ScenarioRun): string | undefined {
  const bodies = run.toolBodies;
  if (!bodies || bodies.size === 0) return undefined;
  for (const turn of viewOf(run).turns) {
    if (turn.recovered) continue;
    const cancel = turn.events.find((e) => e.type === 'cancel.requested');
    if (!cancel) continue;
    const at = cancel.at;
    for (const e of turn.events) {
      if (e.type !== 'tool.result' || e.seq < cancel.seq || e.at <= at) continue;
      const { callId, name } = (e as Extract<LogEvent, { type: 'tool.result' }>).payload;
      // The body that ran across the cancel: started by then (and not told to stop before it started), not ended yet.
      const running = (bodies.get(callId) ?? []).find(
        (b) => b.tool === name && b.startedStopped !== true && b.startedAt <= at && (b.endedAt === undefined || b.endedAt > at),
      );
      if (!running) continue;
      return `turn ${turn.turn} was cancelled at ${at} ms while the body of ${name} (call ${callId}) ran, but the loop answered that call only at ${e.at} ms: it went on waiting for the tool after the cancel`;
    }
  }
  return undefined;
}

function closedWithoutWaiting(run: PeerRun): string | undefined {
  const closed = run.closedMs;
  if (!closed) return undefined;
  for (const cancel of run.cancels ?? []) {
    const at = cancel.ms;
    const closedAt = closed[cancel.turn];
    if (at === undefined || closedAt === undefined) continue;
    if (closedAt <= at) continue;
    // A body the cancel did not end at once (one that reads its signal ends then), while the loop took time after it:
    // it waited for the body — to its end, or to a timeout of its own (a hang that never ends; review of stop 56, L3).
    const waited = run.toolRuns.find(
      (r) => r.turn === cancel.turn && r.startedMs !== undefined && r.startedMs <= at && (r.endedMs === undefined || r.endedMs > at),
    );
    if (waited) {
      const body =
        waited.endedMs === undefined
          ? 'with that body still running'
          : waited.endedMs <= closedAt
            ? `after that body ended on its own at ${waited.endedMs} ms`
            : `while that body still ran (it ended at ${waited.endedMs} ms)`;
      return `turn ${cancel.turn} was cancelled by ${cancel.by} at ${at} ms while the body of ${waited.name} (call ${waited.callId}) ran, but the loop handed the turn back only at ${closedAt} ms, ${body}: it went on waiting for the tool after the cancel`;
    }
  }
  return undefined;
}
