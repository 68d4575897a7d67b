/**
 * Checks every store runs on a batch before storing any of it, so all stores
 * accept and refuse the same batches with the same errors.
 */
import type { EventRecord } from '../kernel/index.ts';
import { StoreConflictError, StoreError, type StoreAppendOptions, type StoredSnapshot } from './event-store.ts';

export function checkConversationId(store: string, conversationId: unknown): asserts conversationId is string {
  if (typeof conversationId !== 'string' || conversationId.length === 0) {
    throw new StoreError(`${store}: conversation id must be a non-empty string, got ${describeValue(conversationId)}`);
  }
}

export function checkFromSeq(store: string, fromSeq: unknown): void {
  if (!Number.isSafeInteger(fromSeq) || (fromSeq as number) < 0) {
    throw new StoreError(`${store}: read fromSeq must be a non-negative integer, got ${describeValue(fromSeq)}`);
  }
}

/** Envelope fields of every record (payloads are checked by the store as it serializes them). */
export function checkRecordShapes(store: string, conversationId: string, records: readonly EventRecord[]): void {
  if (!Array.isArray(records)) {
    throw new StoreError(`${store}: conversation "${conversationId}": append expects an array of records, got ${describeValue(records)}`);
  }
  for (let i = 0; i < records.length; i++) {
    const r = records[i] as EventRecord | null | undefined;
    if (typeof r !== 'object' || r === null) throw badRecord(store, conversationId, i, r, 'record', `must be an object, got ${describeValue(r)}`);
    if (!Number.isSafeInteger(r.seq) || r.seq < 0)
      throw badRecord(store, conversationId, i, r, 'seq', `must be a non-negative integer, got ${describeValue(r.seq)}`);
    if (typeof r.type !== 'string' || r.type.length === 0)
      throw badRecord(store, conversationId, i, r, 'type', `must be a non-empty string, got ${describeValue(r.type)}`);
    if (!Number.isSafeInteger(r.v) || r.v < 1) throw badRecord(store, conversationId, i, r, 'v', `must be a positive integer, got ${describeValue(r.v)}`);
    if (typeof r.at !== 'number' || !Number.isFinite(r.at))
      throw badRecord(store, conversationId, i, r, 'at', `must be a finite number, got ${describeValue(r.at)}`);
    if (typeof r.ignorable !== 'boolean') throw badRecord(store, conversationId, i, r, 'ignorable', `must be a boolean, got ${describeValue(r.ignorable)}`);
    if (r.sources !== undefined) {
      if (!Array.isArray(r.sources)) throw badRecord(store, conversationId, i, r, 'sources', `must be an array of seqs, got ${describeValue(r.sources)}`);
      for (let j = 0; j < r.sources.length; j++) {
        const s = r.sources[j];
        if (!Number.isSafeInteger(s) || s < 0 || s >= r.seq)
          throw badRecord(store, conversationId, i, r, `sources[${j}]`, `must be a seq before ${r.seq}, got ${describeValue(s)}`);
      }
    }
  }
}

function badRecord(store: string, conversationId: string, i: number, r: EventRecord | null | undefined, field: string, why: string): StoreError {
  return new StoreError(`${store}: conversation "${conversationId}": batch record ${i}${typeof r?.seq === 'number' ? ` (seq ${r.seq})` : ''}: ${field} ${why}`);
}

/** The snapshot an append carries, if any: it must describe the state right after the batch. */
export function checkSnapshotOption(
  store: string,
  conversationId: string,
  records: readonly EventRecord[],
  options: StoreAppendOptions | undefined,
): StoredSnapshot | undefined {
  const snapshot = options?.snapshot;
  if (snapshot === undefined) return undefined;
  const end = records.length > 0 ? records[records.length - 1]!.seq + 1 : undefined;
  const bad = (why: string): StoreError => new StoreError(`${store}: conversation "${conversationId}": the snapshot with the batch ${why}; nothing was stored`);
  if (typeof snapshot !== 'object' || snapshot === null) throw bad('is not an object');
  if (end === undefined) throw bad('comes with no records');
  if (snapshot.upTo !== end) throw bad(`is at ${String(snapshot.upTo)}, not at the end of the batch (${end})`);
  if (typeof snapshot.digest !== 'string' || typeof snapshot.body !== 'string') throw bad('has no digest or body text');
  return snapshot;
}

/** The batch must continue the stored sequence: first seq == stored count, then consecutive. */
export function checkSeqs(conversationId: string, storedCount: number, records: readonly EventRecord[]): void {
  if (records.length === 0) return;
  if (records[0]!.seq !== storedCount) throw new StoreConflictError(conversationId, storedCount, records[0]!.seq);
  for (let i = 1; i < records.length; i++) {
    const expected = storedCount + i;
    const got = records[i]!.seq;
    if (got !== expected) {
      throw new StoreConflictError(
        conversationId,
        expected,
        got,
        `batch record ${i} has seq ${got}, expected ${expected} (seqs in a batch must be consecutive); nothing was stored`,
      );
    }
  }
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
