/**
 * The append-only event log: the only source of truth (seed 000 §2).
 *
 * `append` is the one entry point. In a single pass it validates the payload as
 * plain JSON data and freezes a copy of it, checks positions (sources, replaced
 * ranges, tool results against their calls), assigns the next seq, stores the
 * frozen event and notifies listeners. A listener that appends from inside that
 * notification is refused: seq assignment and notification order would interleave.
 */
import type { Clock } from '../clock.ts';
import { EVENT_VERSIONS, IGNORABLE_BY_DEFAULT, type EventPayload, type EventType } from './catalogue.ts';
import type { AnyEvent, Envelope, LogEvent } from './envelope.ts';
import { LogAppendError } from './errors.ts';
import { toFrozenPlainData } from './plain-data.ts';
import { PositionIndex } from './positions.ts';

export interface AppendOptions {
  readonly ignorable?: boolean;
  readonly sources?: readonly number[];
}

export type LogListener = (event: LogEvent) => void;

export class EventLog {
  readonly #events: AnyEvent[];
  readonly #listeners = new Set<LogListener>();
  readonly #positions = new PositionIndex();
  readonly #clock: Pick<Clock, 'now'>;
  #appending = false;
  /** Seq of the first event not yet handed to the store. */
  #flushedUpTo: number;

  /**
   * @param existing events already persisted (decoded by `decodeRecords`), in seq order.
   */
  constructor(clock: Pick<Clock, 'now'>, existing: readonly AnyEvent[] = []) {
    this.#clock = clock;
    this.#events = existing.slice();
    for (const event of this.#events) this.#positions.observe(event);
    this.#flushedUpTo = this.#events.length;
  }

  get length(): number {
    return this.#events.length;
  }

  /** All events, in seq order. The array is a live read-only view. */
  get events(): readonly AnyEvent[] {
    return this.#events;
  }

  at(seq: number): AnyEvent | undefined {
    return this.#events[seq];
  }

  /** Events from `fromSeq` on (a copy). */
  readFrom(fromSeq: number): AnyEvent[] {
    return this.#events.slice(fromSeq);
  }

  get positions(): PositionIndex {
    return this.#positions;
  }

  append<T extends EventType>(type: T, payload: EventPayload<T>, options: AppendOptions = {}): Envelope<T> {
    if (this.#appending) {
      throw new LogAppendError('append', `re-entrant append of "${type}" from inside an append's listener`);
    }
    this.#appending = true;
    try {
      const frozenPayload = toFrozenPlainData(payload, `${type}.payload`) as Readonly<EventPayload<T>>;
      const seq = this.#events.length;
      let sources: readonly number[] | undefined;
      if (options.sources !== undefined) {
        sources = toFrozenPlainData(options.sources, `${type}.sources`) as readonly number[];
        for (let i = 0; i < sources.length; i++) {
          const s = sources[i]!;
          if (!Number.isInteger(s) || s < 0 || s >= seq) {
            throw new LogAppendError(`${type}.sources[${i}]`, `seq ${s} does not exist (log has ${seq} events)`);
          }
        }
      }
      const event = {
        type,
        seq,
        v: EVENT_VERSIONS[type],
        at: this.#clock.now(),
        payload: frozenPayload,
        ignorable: options.ignorable ?? IGNORABLE_BY_DEFAULT.has(type),
        ...(sources ? { sources } : {}),
      } as Envelope<T>;
      this.#positions.check(event as LogEvent, this.#events);
      Object.freeze(event);
      this.#events.push(event as LogEvent);
      this.#positions.observe(event as LogEvent);
      for (const listener of this.#listeners) listener(event as LogEvent);
      return event;
    } finally {
      this.#appending = false;
    }
  }

  /** Listens to appends. Returns the unsubscribe. */
  subscribe(listener: LogListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Events appended since the last `markFlushed`, for the store. */
  unflushed(): readonly AnyEvent[] {
    return this.#events.slice(this.#flushedUpTo);
  }

  get flushedUpTo(): number {
    return this.#flushedUpTo;
  }

  markFlushed(upTo: number): void {
    if (upTo < this.#flushedUpTo || upTo > this.#events.length) {
      throw new LogAppendError('flush', `cannot mark ${upTo} flushed (flushed ${this.#flushedUpTo}, length ${this.#events.length})`);
    }
    this.#flushedUpTo = upTo;
  }
}
