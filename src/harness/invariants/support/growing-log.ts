/** A log grown one event at a time, for folding projections as a live loop does. */
import type { AnyEvent, EventLog } from '../../../kernel/index.ts';

/** A log as ProjectionCache reads it (events, `at`, length, replace generation), grown one event at a time. */
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
  at(seq: number): AnyEvent | undefined {
    return this.events[seq];
  }
  asLog(): EventLog {
    return this as unknown as EventLog;
  }
}
