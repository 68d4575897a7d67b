/**
 * A team's log listener that throws neither undoes the append nor escapes it: the
 * event stays stored, the other listeners still run, and the failure is told in
 * the log right after, as a `log.listener_failed` naming the event's seq and the
 * error (event-log.ts) — where an operator reading the log or its timeline finds
 * it. Never for a `log.listener_failed` itself: a listener that always throws
 * must not make the log grow without end.
 *
 * Judged on the scenario's `listener` (world/team-listener.ts), which throws at
 * every event of the types it names: each event it threw at is in the final log,
 * followed at once by its failure record; a `log.listener_failed` it threw at is
 * followed by none; and the log holds no failure record for anything else.
 */
import type { AnyEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
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
  const log = run.log;
  const told = new Map<number, AnyEvent>();
  for (const event of log.events) if (event.type === 'log.listener_failed') told.set((event.payload as { seq: number }).seq, event);
  const threwAt = new Set<number>();
  for (const thrown of run.listenerThrows ?? []) {
    threwAt.add(thrown.seq);
    const event = log.at(thrown.seq);
    if (event?.type !== thrown.type)
      return `the listener threw at ${thrown.type} (seq ${thrown.seq}), which the log does not hold there (${event?.type ?? 'no event'})`;
    const failure = told.get(thrown.seq);
    if (thrown.type === 'log.listener_failed') {
      if (failure)
        return `the listener threw at the failure record seq ${thrown.seq}, and the log recorded that failure too (seq ${failure.seq}): a listener that always throws would grow the log without end`;
      continue;
    }
    const next = log.at(thrown.seq + 1);
    if (next?.type !== 'log.listener_failed' || (next.payload as { seq: number }).seq !== thrown.seq)
      return `the listener threw at ${thrown.type} (seq ${thrown.seq}), but the next event is ${next ? `${next.type} (seq ${next.seq})` : 'none'}, not the log.listener_failed telling it`;
    const error = (next.payload as { error: string }).error;
    if (error !== thrown.error)
      return `the log.listener_failed for seq ${thrown.seq} says ${JSON.stringify(error)}, but the listener threw ${JSON.stringify(thrown.error)}`;
  }
  for (const [seq, failure] of told)
    if (!threwAt.has(seq)) return `the log records a listener failure at seq ${seq} (seq ${failure.seq}), but no listener threw there`;
  return undefined;
}
