/**
 * The append-only event log: the only source of truth (seed 000 §2).
 *
 * `append` is the one entry point. In a single pass it validates the payload as
 * plain JSON data, passes every string in it (keys too) through the log's
 * redactor and freezes a copy, checks it against the catalogue's schema for its
 * type (what the reader checks: a record it would refuse is never stored; the
 * builders' path, log/builders.ts, checks field by field instead), checks
 * positions (sources, replaced ranges, tool results against their calls),
 * refuses a close of the turn a loop is running (`holdTurn`: only the loop
 * closes it), assigns the next seq, stores the frozen event
 * and notifies listeners. Redaction is a property of the log, not of each call
 * site: no secret the redactor knows is stored, whoever appends.
 *
 * A log reopened from a snapshot (`EventLog.resume`) holds only the events after
 * the snapshot in memory; the earlier ones are read from the store when asked for
 * (`at`, `readFrom`, `events`), in chunks, and kept. Its position index is the
 * snapshot's, restored.
 *
 * A listener that appends from inside that notification is refused: seq
 * assignment and notification order would interleave. A listener that throws
 * does not undo the append nor escape it (the event is stored): the failure is
 * recorded right after as a `log.listener_failed` event, and the other
 * listeners still run.
 */
import type { Clock } from '../clock.ts';
import type { Redactor } from '../redact/index.ts';
import { EVENT_SCHEMAS, EVENT_VERSIONS, IGNORABLE_BY_DEFAULT, isKnownType, type EventPayload, type EventType } from './catalogue.ts';
import type { AnyEvent, Envelope, LogEvent } from './envelope.ts';
import { LogAppendError } from './errors.ts';
import { toFrozenPlainData } from './plain-data.ts';
import { PositionIndex } from './positions.ts';
import { outcomeProblem } from '../outcome.ts';

export interface AppendOptions {
  readonly ignorable?: boolean;
  readonly sources?: readonly number[];
}

export type LogListener = (event: LogEvent) => void;

export interface EventLogOptions {
  /** Applied to every string of every appended payload. Default: none (the loop installs its own, see `redactWith`). */
  readonly redact?: Redactor;
}

/** A type's envelope fields, for a builder to look up once instead of once per event (log/builders.ts). */
export interface BuiltKind {
  readonly type: EventType;
  readonly v: number;
  readonly ignorable: boolean;
}

/** A type's envelope fields as `append` gives them: its version and whether it is ignorable by default. */
export function builtKind<T extends EventType>(type: T): BuiltKind & { readonly type: T } {
  return Object.freeze({ type, v: EVENT_VERSIONS[type], ignorable: IGNORABLE_BY_DEFAULT.has(type) });
}

type Commit = (log: EventLog, kind: BuiltKind, payload: object) => Envelope<EventType>;

/** The log's entry for built payloads, handed to log/builders.ts once (`takeCommit`). */
let builtCommit: Commit | undefined;

/** The log's setter of the turn a loop runs, for `holdTurn`. */
let turnHold: ((log: EventLog, turn: number | undefined) => void) | undefined;

/**
 * Hands over the log's entry for payloads written by a builder — once: the first
 * caller, log/builders.ts at its load, holds it; any later call throws. So no
 * other module can append a payload that did not pass a builder's checks.
 */
export function takeCommit(): Commit {
  const taken = builtCommit;
  if (taken === undefined) throw new Error("the log's commit for built payloads was already taken (only log/builders.ts may hold it)");
  builtCommit = undefined;
  return taken;
}

/**
 * Marks `turn` as run by a loop on `log` (undefined: none): a public append of
 * its `turn.closed` is refused until the loop lets go — the loop lets go just
 * before it closes the turn itself. For the loop (loop/runner.ts); not exported
 * from the package.
 */
export function holdTurn(log: EventLog, turn: number | undefined): void {
  turnHold!(log, turn);
}

/**
 * The checks the reader makes of a record's payload (log/decode.ts: the
 * catalogue's schema for its type), made at the append, naming the field as an
 * append names it. A close's outcome outside the alphabet is named as the
 * alphabet names it (`outcomeProblem`).
 */
function checkSchema(type: EventType, payload: unknown): void {
  if (type === 'turn.closed') {
    const problem = outcomeProblem((payload as { outcome?: unknown }).outcome);
    if (problem !== undefined) throw new LogAppendError('turn.closed.payload.outcome', problem);
  }
  const parsed = EVENT_SCHEMAS[type].safeParse(payload);
  if (parsed.success) return;
  const issue = parsed.error.issues[0]!;
  throw new LogAppendError(`${type}.payload${issue.path.map((k) => (typeof k === 'number' ? `[${k}]` : `.${String(k)}`)).join('')}`, issue.message);
}

/** Where the events before a resumed log's tail come from: the store, read synchronously. */
export interface LogPrefix {
  /** The events `[0, upTo)` are the prefix. */
  readonly upTo: number;
  /** Events `[from, to)` of the prefix, decoded and frozen, in seq order (all of them). Throws when they cannot be read. */
  load(from: number, to: number): readonly AnyEvent[];
  /** The prefix's last event (`upTo - 1`), when the caller has read it already: asked for, it costs no load. */
  readonly last?: AnyEvent;
}

/** Events of the prefix loaded at a time. */
const PREFIX_CHUNK = 256;

export class EventLog {
  /** Events `[#base, length)`. A log with no prefix in the store has `#base` 0: all of them. */
  #events: AnyEvent[];
  /** Seq of `#events[0]`. */
  #base = 0;
  #prefix: LogPrefix | undefined;
  /** Prefix chunks loaded so far, by chunk index. */
  #chunks: (readonly AnyEvent[] | undefined)[] = [];
  readonly #listeners = new Set<LogListener>();
  #positions: PositionIndex;
  readonly #clock: Pick<Clock, 'now'>;
  #appending = false;
  #redact: Redactor | undefined;
  /** Seq of the first event not yet handed to the store. */
  #flushedUpTo: number;

  /**
   * @param existing events already persisted (decoded by `decodeRecords`), in seq order.
   */
  constructor(clock: Pick<Clock, 'now'>, existing: readonly AnyEvent[] = [], options: EventLogOptions = {}) {
    this.#clock = clock;
    this.#redact = options.redact;
    // A new log's array from a literal: V8 tracks the kind of element a literal's arrays come to hold and makes
    // the next ones of that kind, so the append's push stays inlined (a `slice` of an empty array starts as an
    // array of small integers, and every log's first push changed its kind: a builtin call per append after).
    this.#events = existing.length === 0 ? [] : existing.slice();
    this.#positions = new PositionIndex();
    for (const event of this.#events) this.#positions.observe(event);
    this.#flushedUpTo = this.#events.length;
  }

  /**
   * A log reopened from a snapshot taken at `prefix.upTo`: `positions` is the
   * index as it stood there (restored from the snapshot), `tail` the stored events
   * from `prefix.upTo` on (decoded), observed on top of it. (The loop's own folds
   * are seeded from the same snapshot: loop/snapshot.ts.)
   */
  static resume(clock: Pick<Clock, 'now'>, prefix: LogPrefix, positions: PositionIndex, tail: readonly AnyEvent[], options: EventLogOptions = {}): EventLog {
    const log = new EventLog(clock, [], options);
    log.#events = tail.slice();
    log.#base = prefix.upTo;
    log.#prefix = prefix.upTo > 0 ? prefix : undefined;
    log.#positions = positions;
    for (let i = 0; i < log.#events.length; i++) {
      const event = log.#events[i]!;
      if (event.seq !== prefix.upTo + i) throw new LogAppendError('resume', `tail event ${i} has seq ${event.seq}, expected ${prefix.upTo + i}`);
      positions.observe(event);
    }
    log.#flushedUpTo = log.length;
    return log;
  }

  get length(): number {
    return this.#base + this.#events.length;
  }

  /** All events, in seq order. The array is a live read-only view. (A resumed log reads its whole prefix first.) */
  get events(): readonly AnyEvent[] {
    if (this.#base > 0) this.#materialize();
    return this.#events;
  }

  at(seq: number): AnyEvent | undefined {
    if (seq >= this.#base) return this.#events[seq - this.#base];
    if (!(seq >= 0) || !Number.isInteger(seq)) return undefined;
    const last = this.#prefix?.last;
    if (last !== undefined && seq === last.seq && seq === this.#base - 1) return last;
    return this.#prefixChunk(Math.floor(seq / PREFIX_CHUNK))[seq % PREFIX_CHUNK];
  }

  /** Events from `fromSeq` on (a copy). */
  readFrom(fromSeq: number): AnyEvent[] {
    if (fromSeq >= this.#base) return this.#events.slice(fromSeq - this.#base);
    return this.range(fromSeq, this.length);
  }

  /** Events `[from, to)` (a copy; clamped to the log). */
  range(from: number, to: number): AnyEvent[] {
    const start = Math.max(0, from);
    const end = Math.min(to, this.length);
    if (start >= this.#base) return this.#events.slice(start - this.#base, end - this.#base);
    const out: AnyEvent[] = [];
    for (let seq = start; seq < end; seq++) out.push(this.at(seq)!);
    return out;
  }

  /** The prefix chunk `index`, read from the store on first use. */
  #prefixChunk(index: number): readonly AnyEvent[] {
    const loaded = this.#chunks[index];
    if (loaded) return loaded;
    const prefix = this.#prefix!;
    const from = index * PREFIX_CHUNK;
    const to = Math.min(from + PREFIX_CHUNK, prefix.upTo);
    const events = prefix.load(from, to);
    if (events.length !== to - from || events.some((e, i) => e.seq !== from + i)) {
      throw new LogAppendError('prefix', `the store gave ${events.length} event(s) for seqs [${from}, ${to}) of the log's prefix, not those`);
    }
    this.#chunks[index] = events;
    return events;
  }

  /** Reads the whole prefix: from now on the log holds every event in memory. */
  #materialize(): void {
    const all: AnyEvent[] = [];
    const chunks = Math.ceil(this.#base / PREFIX_CHUNK);
    for (let i = 0; i < chunks; i++) for (const event of this.#prefixChunk(i)) all.push(event);
    for (const event of this.#events) all.push(event);
    this.#events = all;
    this.#base = 0;
    this.#prefix = undefined;
    this.#chunks = [];
  }

  get positions(): PositionIndex {
    return this.#positions;
  }

  /** The redactor every append applies, if any. */
  get redactor(): Redactor | undefined {
    return this.#redact;
  }

  /** Sets the redactor for appends from now on, when the log has none (the loop gives the log its own). */
  redactWith(redact: Redactor): void {
    this.#redact ??= redact;
  }

  /** The turn a loop is running on this log, if any (`holdTurn`): only the loop's own close ends it. */
  #heldTurn: number | undefined;

  static {
    turnHold = (log, turn) => {
      log.#heldTurn = turn;
    };
  }

  append<T extends EventType>(type: T, payload: EventPayload<T>, options: AppendOptions = {}): Envelope<T> {
    if (this.#appending) {
      throw new LogAppendError('append', `re-entrant append of "${type}" from inside an append's listener`);
    }
    this.#appending = true;
    let event: Envelope<T>;
    let failures: unknown[] | undefined;
    try {
      // `append` is public: a type or payload the reader refuses, stored, would leave the conversation unreadable from its store.
      if (typeof type !== 'string' || !isKnownType(type)) {
        throw new LogAppendError('type', `${JSON.stringify(type) ?? String(type)} is not an event type of the catalogue; a reader refuses it`);
      }
      const frozenPayload = toFrozenPlainData(payload, `${type}.payload`, this.#redact) as Readonly<EventPayload<T>>;
      checkSchema(type, frozenPayload);
      if (type === 'turn.closed' && this.#heldTurn !== undefined && (frozenPayload as { turn?: unknown }).turn === this.#heldTurn) {
        // Closed under the loop (a hook handed the log), the log would tell one outcome and the loop return another.
        throw new LogAppendError('turn.closed.payload.turn', `turn ${this.#heldTurn} is being run by the loop; only the loop closes it`);
      }
      const seq = this.length;
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
      event = this.#store(type, frozenPayload, options.ignorable ?? IGNORABLE_BY_DEFAULT.has(type), sources, EVENT_VERSIONS[type]);
      failures = this.#notify(event as LogEvent);
    } finally {
      this.#appending = false;
    }
    if (failures) this.#recordListenerFailures(event as LogEvent, failures);
    return event;
  }

  /**
   * Appends a payload a builder wrote (log/builders.ts): checked field by field as
   * `append` checks it, redacted with this log's redactor, frozen. The same path
   * from there on: re-entrancy refused, positions checked, stored, listeners told.
   */
  #appendBuilt<T extends EventType>(kind: BuiltKind & { readonly type: T }, payload: Readonly<EventPayload<T>>): Envelope<T> {
    if (this.#appending) {
      throw new LogAppendError('append', `re-entrant append of "${kind.type}" from inside an append's listener`);
    }
    this.#appending = true;
    let event: Envelope<T>;
    let failures: unknown[] | undefined;
    try {
      event = this.#store(kind.type, payload, kind.ignorable, undefined, kind.v);
      failures = this.#notify(event as LogEvent);
    } finally {
      this.#appending = false;
    }
    if (failures) this.#recordListenerFailures(event as LogEvent, failures);
    return event;
  }

  /** Envelope, position check, freeze, store, index: the one place an event enters the log. */
  #store<T extends EventType>(type: T, payload: Readonly<EventPayload<T>>, ignorable: boolean, sources: readonly number[] | undefined, v: number): Envelope<T> {
    const seq = this.length;
    const at = this.#clock.now();
    // The keys in a store record's order (envelope.ts `toRecord`): an event is its own record.
    const event = (sources ? { seq, type, v, at, payload, ignorable, sources } : { seq, type, v, at, payload, ignorable }) as Envelope<T>;
    this.#positions.check(event as LogEvent, this);
    Object.freeze(event);
    rememberLogged(event);
    this.#events.push(event as LogEvent);
    this.#positions.observe(event as LogEvent);
    return event;
  }

  static {
    builtCommit = (log, kind, payload) => log.#appendBuilt(kind, payload as never);
  }

  /** Runs every listener; returns the errors of those that threw. */
  #notify(event: LogEvent): unknown[] | undefined {
    if (this.#listeners.size === 0) return undefined;
    let failures: unknown[] | undefined;
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        (failures ??= []).push(error);
      }
    }
    return failures;
  }

  /** A listener's failure, told in the log. Not again for the failure event itself: a listener that always throws cannot make the log grow without end. */
  #recordListenerFailures(event: LogEvent, failures: readonly unknown[]): void {
    if (event.type === 'log.listener_failed') return;
    for (const error of failures) {
      this.append('log.listener_failed', {
        seq: event.seq,
        error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      });
    }
  }

  /** Listens to appends. Returns the unsubscribe. */
  subscribe(listener: LogListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Events appended since the last `markFlushed`, for the store. */
  unflushed(): readonly AnyEvent[] {
    return this.readFrom(this.#flushedUpTo);
  }

  get flushedUpTo(): number {
    return this.#flushedUpTo;
  }

  markFlushed(upTo: number): void {
    if (upTo < this.#flushedUpTo || upTo > this.length) {
      throw new LogAppendError('flush', `cannot mark ${upTo} flushed (flushed ${this.#flushedUpTo}, length ${this.length})`);
    }
    this.#flushedUpTo = upTo;
  }
}

/**
 * The last events any log stored (a ring, as plain-data.ts keeps its own): a
 * store handed one of them back moments later — the flush — may keep it as it
 * is instead of a checked frozen copy, which would be equal to it key for key:
 * it is frozen, its payload (and sources) checked plain JSON data, its keys those
 * of a record, in a record's order. A WeakSet costs more per event than the copy.
 */
const LOGGED_SIZE = 64;
const logged: (object | undefined)[] = new Array(LOGGED_SIZE).fill(undefined);
let loggedNext = 0;

function rememberLogged(event: object): void {
  logged[loggedNext] = event;
  loggedNext = (loggedNext + 1) & (LOGGED_SIZE - 1);
}

/**
 * Is `value` one of the last events a log stored (frozen, checked, a record as it is)?
 * Looked for newest first: a store is handed the events a log stored moments ago.
 */
export function isRecentlyLogged(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  for (let i = 1; i <= LOGGED_SIZE; i++) if (logged[(loggedNext - i) & (LOGGED_SIZE - 1)] === value) return true;
  return false;
}
