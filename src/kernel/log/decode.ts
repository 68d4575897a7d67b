/**
 * Reading records back from a store: every record is checked before it can shape
 * a history. Unknown types (or newer versions) are rejected unless ignorable; known
 * payloads must match their schema; seqs must be gapless from `fromSeq`.
 */
import { EVENT_SCHEMAS, EVENT_VERSIONS, isKnownType } from './catalogue.ts';
import type { AnyEvent, EventRecord, OpaqueEvent } from './envelope.ts';
import { LogAppendError, LogReadError } from './errors.ts';
import { toFrozenPlainData } from './plain-data.ts';

export interface DecodeOptions {
  /**
   * The records' payloads are what `JSON.parse` made of the stored text, for this
   * read alone — nothing else holds them (a store that parses each read, such as
   * SQLite: `EventStore.readsOwnedJson`). They are plain JSON data by construction,
   * so each is frozen in place instead of copied: the same checks on the record and
   * its payload's schema, the same frozen event, one allocation of the payload less.
   */
  readonly ownedJson?: boolean;
}

export function decodeRecords(records: readonly EventRecord[], where: string, fromSeq = 0, options?: DecodeOptions): AnyEvent[] {
  const out = new Array<AnyEvent>(records.length);
  const owned = options?.ownedJson === true;
  for (let i = 0; i < records.length; i++) out[i] = decodeRecord(records[i]!, where, fromSeq + i, owned);
  return out;
}

export function decodeRecord(record: EventRecord, where: string, expectedSeq: number, ownedJson = false): AnyEvent {
  const fields = '(a record has seq, type, v, at, ignorable and payload)';
  if (typeof record !== 'object' || record === null || Array.isArray(record))
    throw new LogReadError(
      where,
      expectedSeq,
      `not an event record: ${record === null ? 'null' : Array.isArray(record) ? 'a list' : `a ${typeof record}`} ${fields}`,
    );
  if (record.seq === undefined) throw new LogReadError(where, expectedSeq, `not an event record: it has no seq ${fields}`);
  if (record.seq !== expectedSeq) {
    // A seq already read is a record written twice (or out of order), not one lost: said so.
    const again = Number.isInteger(record.seq) && record.seq >= 0 && record.seq < expectedSeq;
    throw new LogReadError(
      where,
      expectedSeq,
      again
        ? `seq ${record.seq} again: expected seq ${expectedSeq} (a record repeated or out of order)`
        : `seq gap: expected seq ${expectedSeq}, found ${String(record.seq)}`,
    );
  }
  if (typeof record.type !== 'string' || record.type.length === 0) throw new LogReadError(where, record.seq, 'missing type');
  if (!Number.isInteger(record.v) || record.v < 1) throw new LogReadError(where, record.seq, `bad version ${String(record.v)}`);
  if (typeof record.at !== 'number') throw new LogReadError(where, record.seq, `bad time ${String(record.at)}`);
  if (typeof record.ignorable !== 'boolean') throw new LogReadError(where, record.seq, 'missing ignorable flag');
  if (record.sources !== undefined) {
    if (!Array.isArray(record.sources) || record.sources.some((s) => !Number.isInteger(s) || s < 0 || s >= record.seq)) {
      throw new LogReadError(where, record.seq, 'sources refer to seqs that do not precede the record');
    }
  }

  const known = isKnownType(record.type) && record.v <= EVENT_VERSIONS[record.type];
  if (!known) {
    if (!record.ignorable) {
      const what = isKnownType(record.type)
        ? `event type "${record.type}" version ${record.v} is newer than this reader (knows ${EVENT_VERSIONS[record.type]})`
        : `unknown event type "${record.type}"`;
      throw new LogReadError(where, record.seq, `${what}, and it is not marked ignorable; refusing to compute a history without it`);
    }
    const opaque: OpaqueEvent = {
      seq: record.seq,
      type: record.type,
      v: record.v,
      at: record.at,
      payload: ownedJson ? freezeParsed(record.payload) : safeFreeze(record.payload, where, record.seq),
      ignorable: true,
      ...(record.sources ? { sources: Object.freeze([...record.sources]) } : {}),
      opaque: true,
    };
    return Object.freeze(opaque);
  }

  const schema = EVENT_SCHEMAS[record.type as keyof typeof EVENT_SCHEMAS];
  let parsed: ReturnType<typeof schema.safeParse>;
  try {
    parsed = schema.safeParse(record.payload);
  } catch (error) {
    // A store's object that throws as it is read (a lazily loaded column once its connection is gone): named as any refusal.
    throw new LogReadError(where, record.seq, error instanceof Error ? error.message : String(error));
  }
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length ? issue.path.join('.') : '(payload)';
    throw new LogReadError(where, record.seq, `corrupt "${record.type}" payload at ${field}: ${issue.message}`);
  }
  return Object.freeze({
    seq: record.seq,
    type: record.type,
    v: record.v,
    at: record.at,
    // Freeze the record's payload as stored (zod's output drops unknown keys, which
    // would lose data written by a newer compatible writer).
    payload: ownedJson ? freezeParsed(record.payload) : safeFreeze(record.payload, where, record.seq),
    ignorable: record.ignorable,
    ...(record.sources ? { sources: Object.freeze([...record.sources]) } : {}),
  }) as AnyEvent;
}

/** A value `JSON.parse` made (plain data, no cycles, held by no one else), frozen in place, every object and array in it. */
function freezeParsed(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const children = Array.isArray(value) ? value : Object.values(value);
  for (let i = 0; i < children.length; i++) {
    const v = children[i];
    if (typeof v === 'object' && v !== null) freezeParsed(v);
  }
  return Object.freeze(value);
}

/** A payload a store handed over as objects (not JSON it parsed for this read), copied and frozen; refused naming the record and field. */
function safeFreeze(value: unknown, where: string, seq: number): unknown {
  try {
    return toFrozenPlainData(value, 'payload');
  } catch (error) {
    // The copy words its refusal for an append ("cannot append event: <field>: <reason>"); a read names the record.
    if (error instanceof LogAppendError) throw new LogReadError(where, seq, `${error.field}: ${error.reason}`);
    throw new LogReadError(where, seq, (error as Error).message);
  }
}
