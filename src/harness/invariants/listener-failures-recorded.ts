/**
 * A team's log listener that throws neither undoes the append nor escapes it: the
 * event stays stored, the other listeners still run, and the failure is told in
 * the log right after, as a `log.listener_failed` naming the event's seq and the
 * error (event-log.ts) — where an operator reading the log or its timeline finds
 * it. Never for a `log.listener_failed` itself: a listener that always throws
 * must not make the log grow without end.
 *
 * Judged on the scenario's `listener` (world/team-listener.ts), which throws at
 * every event of the types it names: each event it threw at is in the log it was
 * appended to, followed at once by its failure record (a log the production host
 * dropped after a refused write, to open the conversation again from the store,
 * is judged as it was), marked ignorable (a reader from before the type skips
 * it); a `log.listener_failed` it threw at is followed by none;
 * and the stored log holds no failure record for anything else.
 */
import type { AnyEvent, EventLog } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import type { ListenerThrow } from '../world/team-listener.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';

export const listenerFailuresRecorded = defineInvariant({
  id: 'listener-failures-recorded',
  title: 'a log listener that throws leaves the event stored and its failure recorded right after it (not for a failure record itself)',
  appliesTo: loopgateOnly('the event log is loopgate’s own', (run) =>
    run.listenerThrows === undefined ? 'no team listener in the case throws (listener: throwsOn)' : undefined,
  ),
  check: (run) => recorded(run),
});

function recorded(run: ScenarioRun): string | undefined {
  const throws = run.listenerThrows ?? [];
  // Each log the listener was on, judged by its own events: the stored one, and any the production host dropped
  // after a refused write (the conversation opened again from the store), whose unstored tail is gone with it.
  const logs = [...new Set(throws.map((t) => t.on))];
  for (const [i, log] of logs.entries()) {
    const where = logs.length > 1 ? ` (on log ${i + 1} of the ${logs.length} the case opened)` : '';
    const verdict = onLog(
      log,
      throws.filter((t) => t.on === log),
      where,
    );
    if (verdict) return verdict;
  }
  // The stored log: every failure it records answers a throw at the event it holds there.
  for (const event of run.log.events) {
    if (event.type !== 'log.listener_failed') continue;
    const seq = (event.payload as { seq: number }).seq;
    const at = run.log.at(seq);
    if (!throws.some((t) => t.seq === seq && t.type === at?.type && t.type !== 'log.listener_failed'))
      return `the log records a listener failure at seq ${seq} (seq ${event.seq}), but no listener threw there`;
  }
  return undefined;
}

function onLog(log: EventLog, throws: readonly ListenerThrow[], where: string): string | undefined {
  const told = new Map<number, AnyEvent>();
  for (const event of log.events) if (event.type === 'log.listener_failed') told.set((event.payload as { seq: number }).seq, event);
  for (const thrown of throws) {
    const event = log.at(thrown.seq);
    if (event?.type !== thrown.type)
      return `the listener threw at ${thrown.type} (seq ${thrown.seq}), which the log does not hold there (${event?.type ?? 'no event'})${where}`;
    const failure = told.get(thrown.seq);
    if (thrown.type === 'log.listener_failed') {
      if (failure)
        return `the listener threw at the failure record seq ${thrown.seq}, and the log recorded that failure too (seq ${failure.seq}): a listener that always throws would grow the log without end${where}`;
      continue;
    }
    const next = log.at(thrown.seq + 1);
    if (next?.type !== 'log.listener_failed' || (next.payload as { seq: number }).seq !== thrown.seq)
      return `the listener threw at ${thrown.type} (seq ${thrown.seq}), but the next event is ${next ? `${next.type} (seq ${next.seq})` : 'none'}, not the log.listener_failed telling it${where}`;
    const error = (next.payload as { error: string }).error;
    if (error !== thrown.error)
      return `the log.listener_failed for seq ${thrown.seq} says ${JSON.stringify(error)}, but the listener threw ${JSON.stringify(thrown.error)}${where}`;
    // Written ignorable, as model.delta: a reader from before the type skips it rather than refusing the log.
    if (next.ignorable !== true)
      return `the log.listener_failed for seq ${thrown.seq} (seq ${next.seq}) is not marked ignorable: a reader that does not know the type would refuse the log${where}`;
  }
  return undefined;
}
