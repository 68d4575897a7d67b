/**
 * The projection equals a replay of the whole log: the loop's own incremental
 * projection at the end, the pure `project` of every event, and a fresh
 * incremental projection fed event by event all agree.
 */
import { project, ProjectionCache, type AnyEvent, type EventLog } from '../../kernel/index.ts';
import type { ScenarioRun } from '../../harness/second-host.ts';
import { sameJson } from './log-view.ts';

/** A log as ProjectionCache reads it (events, length, replace generation), grown one event at a time. */
export class GrowingLog {
  readonly events: AnyEvent[] = [];
  #generation = 0;
  readonly positions = { generation: 0 };
  push(event: AnyEvent): void {
    this.events.push(event);
    if (!event.opaque && (event.type === 'projection.replaced' || event.type === 'projection.restored')) this.positions.generation = ++this.#generation;
  }
  get length(): number {
    return this.events.length;
  }
  asLog(): EventLog {
    return this as unknown as EventLog;
  }
}

export function projectionEqualsReplay(run: ScenarioRun): string | undefined {
  const replayed = project(run.log.events);
  if (!sameJson(run.finalProjection, replayed)) return "the loop's incremental projection at the end differs from a replay of the whole log";
  const growing = new GrowingLog();
  const cache = new ProjectionCache(growing.asLog());
  for (const event of run.log.events) {
    growing.push(event);
    if (!event.opaque && event.type === 'turn.closed') cache.current(); // fold as a live loop would, turn by turn
  }
  if (!sameJson(cache.current(), replayed)) return 'an incremental projection fed the log event by event differs from a replay of the whole log';
  return undefined;
}
