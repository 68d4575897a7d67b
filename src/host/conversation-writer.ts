/**
 * Writes one conversation's log to its store, as the production host does:
 * write-behind between durability barriers (docs/storage.md).
 *
 * - At most one append of the conversation is in flight. `persist('step')` hands
 *   what the log holds to the store (or, while an append is in flight, leaves it
 *   for the next one) and resolves at once: the loop goes on while the store's
 *   group commit writes this conversation's events together with other
 *   conversations'. Whatever was appended meanwhile goes in the next append, so a
 *   conversation costs at most one store write per step, often fewer.
 * - `persist('barrier')` (and `persist()`) resolves only when everything the log
 *   held at the call is stored: the loop asks for it before a `STATEFUL` or
 *   `CRITICAL` call runs and when a turn closes, the host before it answers a
 *   request whose message must be stored.
 * - A failed write stops the writer: its batch and everything appended after it
 *   stay out of the store, every barrier waiting rejects with the failure, and so
 *   does every later persist, `step` ones included. The loop then ends the turn
 *   `failed{persistence}` at its next persist — at the latest the turn's closing
 *   barrier — and the host drops the log and reopens the conversation from the
 *   store, where the turn is still open (recovery closes it `interrupted`). What
 *   a failure can take with it is therefore bounded by the last barrier: never a
 *   closed turn, never the write-ahead record of a call that ran.
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
  /** The log's length at the latest persist call: what the writer has been asked to store. */
  #wanted: number;
  #inFlight = false;
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
    this.#wanted = log.flushedUpTo;
    this.#snapshotAt = options.snapshots?.from ?? 0;
  }

  /** The failure that stopped the writer, if one did. */
  get failure(): Error | undefined {
    return this.#failed;
  }

  /** The loop's `persist` (see the header). Rejects when an earlier write failed. */
  persist(durability: Durability = 'barrier'): Promise<void> {
    if (this.#failed) return Promise.reject(this.#stopped());
    try {
      this.#options.guard?.();
    } catch (error) {
      return Promise.reject(error);
    }
    const log = this.#log;
    const upTo = log.length;
    if (upTo > this.#wanted) this.#wanted = upTo;
    this.#pump();
    if (this.#failed) return Promise.reject(this.#stopped());
    if (durability === 'step' || log.flushedUpTo >= upTo) return Promise.resolve();
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    this.#barriers.push({ upTo, resolve, reject });
    return promise;
  }

  #stopped(): Error {
    return new Error(`an earlier write failed (${this.#failed!.message}); nothing more is written until the conversation is reopened`);
  }

  /** Starts the next append when none is in flight and something asked for is not handed over yet. */
  #pump(): void {
    if (this.#inFlight || this.#failed || this.#wanted <= this.#handedUpTo) return;
    const log = this.#log;
    try {
      this.#options.guard?.();
    } catch (error) {
      this.#settleBarriers(error as Error); // refused, not failed: nothing was written
      return;
    }
    const from = this.#handedUpTo;
    const upTo = log.length; // everything the log holds: whatever came since the persist call rides along
    const batch = log.readFrom(from).map(toRecord);
    const snapshot = this.#snapshotDue(upTo);
    this.#inFlight = true;
    this.#handedUpTo = upTo;
    let written: Promise<void>;
    try {
      written = this.#store.append(this.#conversationId, batch, snapshot ? { snapshot } : undefined);
    } catch (error) {
      written = Promise.reject(error); // a store that throws instead of rejecting
    }
    written.then(
      () => {
        this.#inFlight = false;
        log.markFlushed(upTo);
        this.#settleBarriers();
        try {
          this.#options.onStored?.();
        } catch {
          // Telling followers never fails a write.
        }
        this.#pump();
      },
      (error: unknown) => {
        this.#inFlight = false;
        this.#failed = error instanceof Error ? error : new Error(String(error));
        this.#settleBarriers(this.#failed);
      },
    );
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

  /** Resolves the barriers the store now covers; with `error`, rejects every one waiting. */
  #settleBarriers(error?: Error): void {
    if (this.#barriers.length === 0) return;
    const stored = this.#log.flushedUpTo;
    const waiting: Barrier[] = [];
    for (const barrier of this.#barriers) {
      if (error) barrier.reject(error);
      else if (barrier.upTo <= stored) barrier.resolve();
      else waiting.push(barrier);
    }
    this.#barriers = waiting;
  }
}
