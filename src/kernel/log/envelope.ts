import type { EventPayload, EventType } from './catalogue.ts';

/** The envelope every event shares (seed 000 §2). Stored events are frozen. */
export interface Envelope<T extends EventType> {
  readonly type: T;
  /** Position in the log: from 0, gapless, the only ordering. */
  readonly seq: number;
  /** Version of this type's payload shape. */
  readonly v: number;
  /** When it was appended (ms); for people, never for ordering. */
  readonly at: number;
  readonly payload: Readonly<EventPayload<T>>;
  /** May a reader that does not know this type skip it? */
  readonly ignorable: boolean;
  /** The seqs this event was derived from (compaction, summaries). */
  readonly sources?: readonly number[];
  readonly opaque?: undefined;
}

/** An event of any catalogued type, narrowable on `type`. */
export type LogEvent = { [T in EventType]: Envelope<T> }[EventType];

/**
 * A record of a type this reader does not know (or a newer version of one it
 * does), kept because the writer marked it ignorable. Never interpreted.
 */
export interface OpaqueEvent {
  readonly type: string;
  readonly seq: number;
  readonly v: number;
  readonly at: number;
  readonly payload: unknown;
  readonly ignorable: true;
  readonly sources?: readonly number[];
  readonly opaque: true;
}

export type AnyEvent = LogEvent | OpaqueEvent;

/** The shape a store persists and returns. */
export interface EventRecord {
  readonly seq: number;
  readonly type: string;
  readonly v: number;
  readonly at: number;
  readonly payload: unknown;
  readonly ignorable: boolean;
  readonly sources?: readonly number[];
}

export function isKnown(event: AnyEvent): event is LogEvent {
  return event.opaque !== true;
}

export function toRecord(event: AnyEvent): EventRecord {
  const record: EventRecord = {
    seq: event.seq,
    type: event.type,
    v: event.v,
    at: event.at,
    payload: event.payload,
    ignorable: event.ignorable,
  };
  return event.sources ? { ...record, sources: event.sources } : record;
}
