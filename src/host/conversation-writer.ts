/**
 * Writes one conversation's log to its store, as the production host does:
 * write-behind between durability barriers (docs/storage.md).
 *
 * - `persist('step')` hands the events appended since the last hand-over to the
 *   store and resolves at once: the loop goes on while the store's group commit
 *   writes them, with other conversations' events and with this conversation's
 *   next hand-overs, in one transaction (stores apply batches in the order they
 *   were handed over). A conversation costs at most one store transaction per
 *   step, often fewer.
 * - `persist('barrier')` (and `persist()`) resolves only when everything the log
 *   held at the call is stored: the loop asks for it when a turn has claimed its
 *   messages, before a `STATEFUL` or `CRITICAL` call runs and when a turn closes;
 *   the host before it answers a request whose message must be stored.
 * - A failed write stops the writer: its batch and everything after it stay out
 *   of the store (a batch handed over after it fails its seq check). Batches handed
 *   over before it still count as stored when the store commits them, whatever
 *   order the store answers in; then every barrier they do not cover rejects with
 *   the failure, and so does every later persist, `step` ones included. The loop then ends the turn `failed{persistence}` at its next
 *   persist — at the latest the turn's closing barrier — and the host drops the
 *   log and reopens the conversation from the store, where the turn is still open
 *   (recovery closes it `interrupted`). What a failure can take with it is bounded
 *   by the last barrier: never a closed turn, never the write-ahead record of a
 *   call that ran.
 */
import { toRecord, type Durability, type EventLog } from '../kernel/index.ts';
import type { EventStore, StoredSnapshot } from '../stores/event-store.ts';

export interface SnapshotSchedule {
  /** A snapshot goes with the first write that reaches this many events past the last one (0: never). */
  readonly every: number;
  /** Where the last snapshot stands (the one the log was resumed from), else 0. */
  readonly from: number;
  /** The snapshot of the log at its current length; undefined while there is none to take. */
  readonly take: () => StoredSnapshot | undefined;
  /** Taking one threw (it is skipped: a write never fails for a snapshot). */
  readonly failed?: (error: unknown) => void;
}

export interface ConversationWriterOptions {
  /** Runs at each persist and before each write; throwing refuses them (a halted host writes nothing more). */
  readonly guard?: () => void;
  /** After each write the store committed (the conversation's followers are told). */
  readonly onStored?: () => void;
  /** Snapshots of derived state written with the events (stores with `readSnapshot` only). */
  readonly snapshots?: SnapshotSchedule;
}

/** A batch handed to the store, not answered yet. */
interface InFlight {
  readonly upTo: number;
  /** How the store answered; stores may answer batches out of hand-over order. */
  state: 'pending' | 'stored' | 'failed';
}

interface Barrier {
  readonly upTo: number;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

export class ConversationWriter {
  readonly #store: Pick<EventStore, 'append'>;
  readonly #conversationId: string;
  readonly #log: EventLog;
  readonly #options: ConversationWriterOptions;
  /** Events handed to the store: stored, or in the append in flight. */
  #handedUpTo: number;
  /** Batches handed over and not yet answered, in hand-over order. */
  readonly #inFlight: InFlight[] = [];
  #failed: Error | undefined;
  #barriers: Barrier[] = [];
  /** Where the last snapshot handed to the store stands. */
  #snapshotAt: number;

  constructor(store: Pick<EventStore, 'append'>, conversationId: string, log: EventLog, options: ConversationWriterOptions = {}) {
    this.#store = store;
    this.#conversationId = conversationId;
    this.#log = log;
    this.#options = options;
    this.#handedUpTo = log.flushedUpTo;
    this.#snapshotAt = options.snapshots?.from ?? 0;
  }

  /** The failure that stopped the writer, if one did. */
  get failure(): Error | undefined {
    return this.#failed;
  }

  /** The loop's `persist` (see the header). Rejects when an earlier write failed. */
  persist(durability: Durability = 'barrier'): Promise<void> {
    if (this.#failed) return this.#afterFailure();
    try {
      this.#options.guard?.();
    } catch (error) {
      return Promise.reject(error);
    }
    const log = this.#log;
    const upTo = log.length;
    this.#handOver();
    if (this.#failed) return this.#afterFailure();
    if (durability === 'step' || log.flushedUpTo >= upTo) return Promise.resolve();
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    this.#barriers.push({ upTo, resolve, reject });
    return promise;
  }

  #stopped(): Error {
    return new Error(`an earlier write failed (${this.#failed!.message}); nothing more is written until the conversation is reopened`);
  }

  /**
   * A persist after the writer stopped rejects — once every batch handed over
   * before the failed one has been answered, so `flushedUpTo` says what the store
   * holds when the caller learns of the failure (the host answers "stored" or
   * "not stored" from it).
   */
  #afterFailure(): Promise<void> {
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    this.#barriers.push({ upTo: Number.POSITIVE_INFINITY, resolve, reject: () => reject(this.#stopped()) });
    this.#settle();
    return promise;
  }

  /** Hands the events appended since the last hand-over to the store. */
  #handOver(): void {
    const log = this.#log;
    const from = this.#handedUpTo;
    const upTo = log.length;
    if (this.#failed || upTo <= from) return;
    const batch = log.readFrom(from).map(toRecord);
    const snapshot = this.#snapshotDue(upTo);
    const entry: InFlight = { upTo, state: 'pending' };
    this.#inFlight.push(entry);
    this.#handedUpTo = upTo;
    let written: Promise<void>;
    try {
      written = this.#store.append(this.#conversationId, batch, snapshot ? { snapshot } : undefined);
    } catch (error) {
      written = Promise.reject(error); // a store that throws instead of rejecting
    }
    written.then(
      () => {
        entry.state = 'stored';
        this.#settle();
      },
      (error: unknown) => {
        entry.state = 'failed';
        // Nothing more is handed over from now on; what was stored before it still counts.
        this.#failed ??= error instanceof Error ? error : new Error(String(error));
        this.#settle();
      },
    );
  }

  /**
   * Takes the store's answers in hand-over order: batches answered stored mark the
   * log flushed up to them; a failed batch stops the count there (a batch after it
   * is never counted as stored, whatever the store answered). Then resolves the
   * barriers the store covers, and — once the failed batch is next — rejects the rest.
   */
  #settle(): void {
    let stored: number | undefined;
    while (this.#inFlight.length > 0 && this.#inFlight[0]!.state === 'stored') stored = this.#inFlight.shift()!.upTo;
    if (stored !== undefined) {
      this.#log.markFlushed(stored);
      try {
        this.#options.onStored?.();
      } catch {
        // Telling followers never fails a write.
      }
    }
    const blocked = this.#failed !== undefined && (this.#inFlight.length === 0 || this.#inFlight[0]!.state === 'failed');
    this.#settleBarriers(blocked ? this.#failed : undefined);
  }

  /** The snapshot to write with the batch ending at `upTo`, when one is due. */
  #snapshotDue(upTo: number): StoredSnapshot | undefined {
    const schedule = this.#options.snapshots;
    if (!schedule || schedule.every <= 0 || upTo - this.#snapshotAt < schedule.every) return undefined;
    let snapshot: StoredSnapshot | undefined;
    try {
      snapshot = schedule.take();
    } catch (error) {
      schedule.failed?.(error);
      return undefined;
    }
    if (snapshot?.upTo !== upTo) return undefined;
    this.#snapshotAt = upTo;
    return snapshot;
  }

  /** Resolves the barriers the store now covers; with `error`, rejects every other one waiting. */
  #settleBarriers(error?: Error): void {
    if (this.#barriers.length === 0) return;
    const stored = this.#log.flushedUpTo;
    const waiting: Barrier[] = [];
    for (const barrier of this.#barriers) {
      if (barrier.upTo <= stored) barrier.resolve();
      else if (error) barrier.reject(error);
      else waiting.push(barrier);
    }
    this.#barriers = waiting;
  }
}
