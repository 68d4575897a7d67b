/**
 * Where conversations' events live. The kernel never touches a store directly;
 * the host writes the log's new events here behind the loop (batches share a
 * group commit: at most one transaction per step), between durability barriers
 * (the turn's claim, a STATEFUL/CRITICAL call's write-ahead record, the turn's
 * close; see docs/storage.md and host/conversation-writer.ts).
 *
 * The persistence-failure contract, in the design's terms:
 * - `append` resolves only once its batch is durably stored, and a batch is
 *   stored whole or not at all. Durable stores commit the batches of many
 *   conversations appended together in one transaction (group commit); batches
 *   are applied in the order `append` was called.
 * - A batch refused on its own (its seqs do not continue the conversation, or
 *   the database refuses its rows) rejects alone; the rest of its group is stored.
 * - A group whose transaction cannot start or commit stores nothing of any of its
 *   batches, and every `append` of the group rejects.
 * - The host takes a rejected `append` as the end of that log: nothing it appended
 *   after the failed batch is written, the running turn ends
 *   `failed{persistence}` at its next persist (its callers get 503), and the
 *   conversation is reopened from the store, where recovery closes the turn
 *   `interrupted`. What a failure can take with it never reaches past the
 *   conversation's last barrier: no closed turn, no answered request, no
 *   write-ahead record of a call that ran.
 */
import { InputError, type EventRecord } from '../kernel/index.ts';

/**
 * Lets go of a conversation lock (idempotent). `lost`, where the store can tell: aborts when the store let go of the
 * lock while it was held — a PostgreSQL advisory lock whose connection dropped — so another host may take it; the
 * holder must stop its turn and write nothing more of the conversation.
 */
export type Release = (() => Promise<void>) & { readonly lost?: AbortSignal };

export interface EventStore {
  /** A short description for messages, e.g. `sqlite:/var/lib/agent.db` (never with a password). */
  readonly describe: string;
  /**
   * Appends a batch atomically: all of it is stored, or none of it. The first
   * record's seq must equal the number of events already stored for the
   * conversation, and seqs must be consecutive; otherwise `StoreConflictError`.
   */
  append(conversationId: string, records: readonly EventRecord[], options?: StoreAppendOptions): Promise<void>;
  /** Records from `fromSeq` on, in seq order. Corrupt records raise `StoreCorruptionError`. */
  read(conversationId: string, fromSeq?: number): Promise<EventRecord[]>;
  /**
   * True when every record `read` (and `readRangeSync`) returns has a payload that
   * `JSON.parse` made of the stored text for that call alone: plain JSON data that
   * nothing else holds (SQLite, PostgreSQL). A reader may then freeze it in place
   * instead of copying it (kernel `decodeRecords`, option `ownedJson`). A store that
   * hands out records it keeps (memory) must not say so.
   */
  readonly readsOwnedJson?: boolean;
  /**
   * Optional, for stores that keep snapshots (`StoreAppendOptions.snapshot`): the
   * conversation's latest stored snapshot, as stored (the host checks it).
   */
  readSnapshot?(conversationId: string): Promise<StoredSnapshot | undefined>;
  /**
   * Optional, for stores that keep snapshots and can read synchronously (SQLite,
   * memory): records `[from, to)` (fewer if the store holds fewer), as `read`
   * would return them. A log resumed from a snapshot reads its prefix through it,
   * on demand. Throws as `read` rejects.
   */
  readRangeSync?(conversationId: string, from: number, to: number): EventRecord[];
  listConversations(): Promise<string[]>;
  /**
   * The conversation lock: one turn at a time per conversation, granted in FIFO
   * order. Resolves to the release function (with `lost`, where the store can lose
   * a held lock). Rejects with `StoreLockAbortedError` if `signal` aborts while waiting.
   */
  lock(conversationId: string, signal?: AbortSignal): Promise<Release>;
  /**
   * Optional, for stores one process at a time may write (SQLite): claims the store
   * for this store object until `close`, so a second process's host on the same
   * file refuses (`StoreInUseError`, naming the owner) or waits, instead of
   * recovering the first one's live turns as crashed. Claiming again is harmless.
   * Stores many hosts share (PostgreSQL, whose conversation lock spans hosts) or
   * that live in one process (memory) do not have it.
   */
  claimWriter?(options?: WriterClaimOptions): Promise<void>;
  close(): Promise<void>;
}

/**
 * A snapshot of a conversation's derived state (kernel loop/snapshot.ts), encoded
 * by the host (host/snapshots.ts). Opaque to the store.
 */
export interface StoredSnapshot {
  /** It is the state after events `[0, upTo)`. */
  readonly upTo: number;
  /** Checked by the host on read: a snapshot whose body does not match is not used. */
  readonly digest: string;
  readonly body: string;
}

export interface StoreAppendOptions {
  /**
   * Stored with the batch, atomically (both or neither), replacing the
   * conversation's previous snapshot. Its `upTo` must be the seq after the
   * batch's last record. A store without snapshots (no `readSnapshot`) ignores it.
   */
  readonly snapshot?: StoredSnapshot;
}

export interface WriterClaimOptions {
  /** How long to wait for the other owner to let go (ms). 0 (the default): refuse at once. */
  readonly waitMs?: number;
  /** Stops waiting. */
  readonly signal?: AbortSignal;
}

/**
 * A store that cannot be used as asked: a path or URL that does not open, a file
 * that is not a loopgate store, a damaged record, a conflicting writer. Always
 * about the store the user named, never a bug in loopgate, so an `InputError`
 * (exit 2 from the CLI); inside a turn the host turns it into `failed{persistence}`.
 */
export class StoreError extends InputError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
  }
}

/** The batch does not continue the stored sequence (another writer, or a lost flush). */
export class StoreConflictError extends StoreError {
  readonly conversationId: string;
  /** The seq the store expected at the offending position of the batch. */
  readonly expected: number;
  /** The seq the batch carried there. */
  readonly got: number;
  /**
   * @param detail replaces the default explanation, e.g. for a gap inside the batch
   *   (where "the store holds N events" would not be what went wrong).
   */
  constructor(conversationId: string, expected: number, got: number, detail?: string) {
    super(`conversation "${conversationId}": ${detail ?? `append at seq ${got}, but the store holds ${expected} events`}`);
    this.name = 'StoreConflictError';
    this.conversationId = conversationId;
    this.expected = expected;
    this.got = got;
  }
}

/** A stored record cannot be read back: it names the conversation and seq; nothing is deleted. */
export class StoreCorruptionError extends StoreError {
  readonly conversationId: string;
  readonly seq: number;
  constructor(store: string, conversationId: string, seq: number, reason: string) {
    super(`${store}: conversation "${conversationId}" record seq ${seq} is corrupt: ${reason}`);
    this.name = 'StoreCorruptionError';
    this.conversationId = conversationId;
    this.seq = seq;
  }
}

export class StoreLockAbortedError extends StoreError {
  constructor(conversationId: string) {
    super(`conversation "${conversationId}": gave up waiting for the conversation lock`);
    this.name = 'StoreLockAbortedError';
  }
}

/** Another live process holds the store's writer claim. */
export class StoreInUseError extends StoreError {
  constructor(message: string) {
    super(message);
    this.name = 'StoreInUseError';
  }
}
