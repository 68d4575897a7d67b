/**
 * Group commit for the PostgreSQL store: batches appended while a group is being
 * written — from any number of conversations — wait, and are then written
 * together in ONE transaction on one pooled connection: the append locks of
 * their conversations (taken in key order, so two hosts' groups never deadlock),
 * one max-seq query, one multi-row INSERT, one COMMIT. One group is written at a
 * time, so batches are applied in the order `append` was called, and a busy
 * store writes bigger groups instead of queueing round trips.
 *
 * What a failure takes with it:
 * - a batch that does not continue its conversation is refused on its own
 *   (`StoreConflictError`) before the INSERT; the rest of the group is written;
 * - if the database refuses the INSERT (a key rule: a writer that skipped the
 *   append lock), the group is rolled back and each batch is retried in a
 *   transaction of its own, so each gets its own answer;
 * - if the transaction fails before COMMIT (connection lost, server error), no
 *   batch of the group is stored and every one is rejected;
 * - if COMMIT itself fails, every batch of the group is rejected with "may or may
 *   not be stored" (the server may have committed before the connection broke):
 *   read the conversation back to know. A host drops its log and reopens it from
 *   the store, which is right either way.
 */
import type pg from 'pg';
import type { EventRecord } from '../kernel/index.ts';
import { checkSeqs } from './batch-check.ts';
import { StoreError } from './event-store.ts';

/** A batch serialized as the INSERT's columns. */
export interface PgBatch {
  readonly conversationId: string;
  readonly records: readonly EventRecord[];
  /** seqs, types, versions, ats, ignorables, sources, payloads — one entry per record. */
  readonly columns: readonly unknown[][];
}

interface Queued extends PgBatch {
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export interface GroupCommitPorts {
  /** A pooled connection, or a StoreError saying why not. */
  connect(what: string): Promise<pg.PoolClient>;
  /** The append lock key of a conversation (bigint as text). */
  appendKey(conversationId: string): string;
  readonly sql: { readonly maxSeqs: string; readonly insertMany: string };
  /** One batch in a transaction of its own (the fallback when a group's INSERT is refused). */
  appendAlone(batch: PgBatch): Promise<void>;
  /** A driver error as the StoreError a caller gets. */
  writeError(batch: PgBatch, stage: 'write' | 'commit', error: unknown): StoreError;
}

export class PgGroupCommit {
  readonly #ports: GroupCommitPorts;
  #queue: Queued[] = [];
  #running: Promise<void> | undefined;

  constructor(ports: GroupCommitPorts) {
    this.#ports = ports;
  }

  /** Resolves once the batch is committed; rejects with why it was not (see the header). */
  append(batch: PgBatch): Promise<void> {
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    this.#queue.push({ ...batch, resolve, reject });
    this.#running ??= this.#run();
    return promise;
  }

  /** Resolves when every batch handed over so far has its answer. */
  async drained(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async #run(): Promise<void> {
    try {
      // The first batch waits one turn of the event loop for the others appended with it.
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (this.#queue.length > 0) {
        const group = this.#queue;
        this.#queue = [];
        await this.#write(group);
      }
    } finally {
      this.#running = undefined;
    }
  }

  async #write(group: readonly Queued[]): Promise<void> {
    const ports = this.#ports;
    let client: pg.PoolClient;
    try {
      client = await ports.connect('append failed, nothing was stored');
    } catch (error) {
      for (const b of group) b.reject(error);
      return;
    }
    const ignore = (): void => undefined;
    client.on('error', ignore);
    let broken: Error | undefined;
    let stage: 'begin' | 'write' | 'commit' = 'begin';
    const written: Queued[] = [];
    try {
      await client.query('BEGIN');
      stage = 'write';
      const ids = [...new Set(group.map((b) => b.conversationId))];
      const keys = [...new Set(ids.map((id) => ports.appendKey(id)))].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
      // In key order, one at a time: hosts writing overlapping groups queue instead of deadlocking.
      await client.query('SELECT count(pg_advisory_xact_lock(k)) FROM (SELECT unnest($1::bigint[]) AS k ORDER BY k) AS keys', [keys]);
      const stored = await client.query<{ conversation: string; m: string }>({ name: 'loopgate_max_seqs', text: ports.sql.maxSeqs, values: [ids] });
      const next = new Map<string, number>(stored.rows.map((r) => [r.conversation, Number(r.m) + 1]));
      for (const batch of group) {
        try {
          const expected = next.get(batch.conversationId) ?? 0;
          checkSeqs(batch.conversationId, expected, batch.records);
          next.set(batch.conversationId, expected + batch.records.length);
          written.push(batch);
        } catch (error) {
          batch.reject(error); // refused alone; a later batch of its conversation then fails its own check
        }
      }
      if (written.length > 0) {
        const columns = Array.from({ length: 8 }, () => [] as unknown[]);
        for (const batch of written) {
          for (let i = 0; i < batch.records.length; i++) {
            columns[0]!.push(batch.conversationId);
            for (let c = 0; c < 7; c++) columns[c + 1]!.push(batch.columns[c]![i]);
          }
        }
        await client.query({ name: 'loopgate_insert_many', text: ports.sql.insertMany, values: columns });
      }
      stage = 'commit';
      await client.query('COMMIT');
    } catch (error) {
      broken = await undoFailed(client, stage, error);
      client.off('error', ignore);
      client.release(broken ?? false);
      const code = (error as { code?: unknown }).code;
      if (stage === 'write' && (code === '23505' || code === '23503')) {
        // The database's own key rules refused some row: each batch on its own, for its own answer.
        for (const batch of written) await ports.appendAlone(batch).then(batch.resolve, batch.reject);
        return;
      }
      // A promise settles once: the batches refused on their own keep that answer.
      for (const batch of group) batch.reject(ports.writeError(batch, stage === 'commit' ? 'commit' : 'write', error));
      return;
    }
    client.off('error', ignore);
    client.release();
    for (const batch of written) batch.resolve();
  }
}

/**
 * After a failed transaction: rolls back what began, and gives the error that
 * makes the connection unusable (not to go back to the pool), if any — a failed
 * ROLLBACK, or a failed COMMIT, whose fate the connection cannot tell.
 */
export async function undoFailed(client: pg.PoolClient, stage: 'begin' | 'write' | 'commit', error: unknown): Promise<Error | undefined> {
  if (stage === 'commit') return error as Error;
  try {
    await client.query('ROLLBACK');
    return undefined;
  } catch (rollbackError) {
    return rollbackError as Error;
  }
}
