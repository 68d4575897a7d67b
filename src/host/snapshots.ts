/**
 * Snapshots of a conversation's derived state in the store (docs/storage.md):
 * written with the events every `snapshots.every` events, read when the
 * conversation is reopened — the snapshot, then only the events after it.
 *
 * A stored snapshot is used only when every check passes: its digest matches its
 * body (damage), it parses, its format and event catalogue are this code's, every
 * part is well formed, and the stored event it was taken after is still there
 * (kernel loop/snapshot.ts). Otherwise the conversation is read whole, as if there
 * were no snapshot, and the reason is told to the host's observer: a snapshot can
 * cost a slower open, never a wrong history.
 */
import { createHash } from 'node:crypto';
import { type Clock, decodeRecords, EventLog, type LogPrefix, type LoopSnapshot, resumeFromSnapshot, SnapshotMismatch } from '../kernel/index.ts';
import type { EventStore, StoredSnapshot } from '../stores/event-store.ts';

/** A snapshot as the store keeps it: JSON, with its digest. */
export function encodeSnapshot(snapshot: LoopSnapshot): StoredSnapshot {
  // Flat arrays of primitives for the most part (the projection's messages, the calls' columns): one
  // JSON.stringify, and the reader's JSON.parse, cost little per value.
  const body = JSON.stringify(snapshot);
  return { upTo: snapshot.upTo, digest: digestOf(body), body };
}

/** The snapshot a stored one holds; `SnapshotMismatch` when it is damaged or not one. */
export function decodeSnapshot(stored: StoredSnapshot): LoopSnapshot {
  if (typeof stored?.body !== 'string' || typeof stored.digest !== 'string') throw new SnapshotMismatch('the stored snapshot has no body or digest');
  if (digestOf(stored.body) !== stored.digest) throw new SnapshotMismatch('the stored snapshot does not match its digest (damaged)');
  let snapshot: LoopSnapshot;
  try {
    snapshot = JSON.parse(stored.body) as LoopSnapshot;
  } catch (error) {
    throw new SnapshotMismatch(`the stored snapshot is not JSON: ${(error as Error).message}`);
  }
  if (snapshot?.upTo !== stored.upTo) throw new SnapshotMismatch(`the stored snapshot says upTo ${String(snapshot?.upTo)}, its row ${stored.upTo}`);
  return snapshot;
}

function digestOf(body: string): string {
  return createHash('sha256').update(body).digest('hex');
}

export interface OpenedLog {
  readonly log: EventLog;
  /** The snapshot's `upTo` when the log was resumed from one. */
  readonly restoredFrom?: number;
  /** Why a stored snapshot was not used (the log was read whole). */
  readonly rejected?: string;
}

/**
 * A conversation's log from the store: resumed from its snapshot when the store
 * keeps one that passes every check (the prefix then read on demand, synchronously),
 * else read whole. Rejects as `store.read` and `decodeRecords` do.
 */
export async function openLog(store: EventStore, conversationId: string, clock: Pick<Clock, 'now'>): Promise<OpenedLog> {
  const where = `${store.describe} conversation "${conversationId}"`;
  const decode = { ownedJson: store.readsOwnedJson === true };
  let rejected: string | undefined;
  const readRange = store.readRangeSync?.bind(store);
  if (store.readSnapshot && readRange) {
    let stored: StoredSnapshot | undefined;
    try {
      stored = await store.readSnapshot(conversationId);
    } catch (error) {
      rejected = `reading the snapshot failed: ${(error as Error).message}`;
    }
    if (stored && stored.upTo > 0) {
      try {
        const snapshot = decodeSnapshot(stored);
        const upTo = stored.upTo;
        // From the event the snapshot was taken after: it is checked against the snapshot, the rest is the tail.
        const [last, ...tail] = decodeRecords(await store.read(conversationId, upTo - 1), where, upTo - 1, decode);
        if (!last) throw new SnapshotMismatch(`the store holds fewer than ${upTo} events`);
        const prefix: LogPrefix = { upTo, last, load: (from, to) => decodeRecords(readRange(conversationId, from, to), where, from, decode) };
        return { log: resumeFromSnapshot(clock, snapshot, prefix, tail), restoredFrom: upTo };
      } catch (error) {
        if (!(error instanceof SnapshotMismatch)) throw error; // the tail itself cannot be read: as a whole read would fail
        rejected = error.message;
      }
    }
  }
  const log = new EventLog(clock, decodeRecords(await store.read(conversationId), where, 0, decode));
  return rejected === undefined ? { log } : { log, rejected };
}
