/**
 * The projection equals a replay of the whole log: the loop's own incremental
 * projection at the end, the pure `project` of every event, and a fresh
 * incremental projection fed event by event all agree.
 */
import { project, ProjectionCache } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { GrowingLog } from './support/growing-log.ts';
import { sameJson } from './support/log-view.ts';

export const projectionEqualsReplay = defineInvariant({
  id: 'projection-equals-replay',
  title: "the loop's incremental projection equals a replay of the whole log",
  appliesTo: loopgateOnly('no log to replay: a peer keeps none'),
  check: (run) => equalsReplay(run),
});

function equalsReplay(run: ScenarioRun): string | undefined {
  const replayed = project(run.log.events);
  // No loop ran over the final log when the host could not open it (a refused recovery write).
  if (run.finalProjection !== undefined && !sameJson(run.finalProjection, replayed))
    return "the loop's incremental projection at the end differs from a replay of the whole log";
  const growing = new GrowingLog();
  const cache = new ProjectionCache(growing.asLog());
  for (const event of run.log.events) {
    growing.push(event);
    if (!event.opaque && event.type === 'turn.closed') cache.current(); // fold as a live loop would, turn by turn
  }
  if (!sameJson(cache.current(), replayed)) return 'an incremental projection fed the log event by event differs from a replay of the whole log';
  return undefined;
}
