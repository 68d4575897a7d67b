/**
 * Reading a store back as a case of `loopgate run`: `contract:log/<id>`.
 *
 * A store that does not hand back what `JSON.parse` made (EventStore without
 * `readsOwnedJson`: an in-memory store, or a team's own over a driver that
 * revives values — a Date for a timestamp, a BigInt for a big number) can give
 * the reader a record whose payload has the right shape but holds data JSON
 * cannot: the host must refuse the conversation rather than compute a history
 * from it, and its error — what an operator reads in the 500 answer and the
 * recovery sweep's report — must say which conversation, which record and which
 * field, as every other refusal of a stored record does. The scenarios' stores
 * write through the log and read plain JSON back, so none can produce such a
 * record: this case hands the reader one, as the host reads it
 * (`decodeRecords(records, '<store> conversation "<id>"')`, host.ts).
 */
import { decodeRecords, LogReadError, type EventRecord } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';

const WHERE = 'driver-store conversation "c-42"';

/** Three records as the loop writes them, the assistant's call arguments read back with a revived Date. */
function recordsWithARevivedDate(): EventRecord[] {
  const at = 1_700_000_000_000;
  return [
    { seq: 0, type: 'inbox.received', v: 1, at, ignorable: false, payload: { id: 'm1', intent: 'follow_up', text: 'Book me a call.', source: 'user' } },
    { seq: 1, type: 'turn.opened', v: 1, at, ignorable: false, payload: { turn: 0, trigger: 'm1' } },
    {
      seq: 2,
      type: 'assistant.message',
      v: 1,
      at,
      ignorable: false,
      payload: {
        turn: 0,
        step: 1,
        content: [{ type: 'tool_call', id: 'c1', name: 'book_call', args: { who: { name: 'Ada' }, when: new Date(at) } }],
      },
    },
  ];
}

/**
 * Records a team's own store hands back garbled by its driver, each with the line
 * it must be refused with: a row whose type column came back empty (a migration
 * that dropped it), and a row the driver tagged with a symbol-keyed property of
 * its own (drivers that mark the rows they made). Neither may shape a history,
 * and an operator must read what is wrong, not an empty reason.
 */
function garbledRecords(): { readonly what: string; readonly records: EventRecord[]; readonly expected: string }[] {
  const [inbox, opened, assistant] = recordsWithARevivedDate() as [EventRecord, EventRecord, EventRecord];
  const call = { type: 'tool_call', id: 'c1', name: 'book_call', args: { who: { name: 'Ada' } } };
  Object.defineProperty(call.args, Symbol.for('driver.row'), { value: 7, enumerable: true });
  return [
    {
      what: 'a record whose type came back empty',
      records: [inbox, { ...opened, type: odd<string>(null) }],
      expected: `${WHERE} record seq 1: missing type`,
    },
    {
      what: 'arguments the driver tagged with a symbol-keyed property',
      records: [inbox, opened, { ...assistant, payload: { turn: 0, step: 1, content: [call] } }],
      expected: `${WHERE} record seq 2: payload.content[0].args: symbol-keyed properties are not JSON data`,
    },
  ];
}

/**
 * Records a team's own row mapper hands back wrong, each with the line it must be
 * refused with: a row mapped without its seq (a select that left the column
 * out), a NULL column mapped to `undefined`, a driver's sentinel symbol left in a
 * field, a list the driver tagged with a property of its own, and a lazily
 * loaded column whose getter throws once the connection is gone. None may shape
 * a history; the operator reads which record and what is wrong (for the getter,
 * its own words).
 */
function mappedRecords(): { readonly what: string; readonly records: EventRecord[]; readonly expected: string }[] {
  const [inbox, opened, assistant] = recordsWithARevivedDate() as [EventRecord, EventRecord, EventRecord];
  const { seq: _seq, ...withoutSeq } = inbox;
  const withArgs = (args: Record<string, unknown>) => ({ type: 'tool_call', id: 'c1', name: 'book_call', args });
  const tagged = Object.assign([{ type: 'tool_call', id: 'c1', name: 'book_call', args: { who: { name: 'Ada' } } }], { rowCount: 1 });
  const lazy = { turn: 0 } as Record<string, unknown>;
  Object.defineProperty(lazy, 'trigger', {
    enumerable: true,
    get: () => {
      throw new Error('column "trigger" was not loaded and the connection is closed');
    },
  });
  return [
    {
      what: 'a row mapped without its seq',
      records: [odd<EventRecord>(withoutSeq)],
      expected: `${WHERE} record seq 0: not an event record: it has no seq (a record has seq, type, v, at, ignorable and payload)`,
    },
    // Outside probe 34, LOW: a list of numbers read as events said only "not an object".
    {
      what: 'a row that came back as a bare number',
      records: [odd<EventRecord>(1)],
      expected: `${WHERE} record seq 0: not an event record: a number (a record has seq, type, v, at, ignorable and payload)`,
    },
    {
      what: 'a NULL column mapped to undefined',
      records: [inbox, opened, { ...assistant, payload: { turn: 0, step: 1, content: [withArgs({ who: { name: 'Ada' }, note: undefined })] } }],
      expected: `${WHERE} record seq 2: payload.content[0].args.note: undefined is not JSON data (omit the field instead)`,
    },
    {
      what: "a driver's sentinel symbol left in a field",
      records: [
        inbox,
        opened,
        { ...assistant, payload: { turn: 0, step: 1, content: [withArgs({ who: { name: 'Ada' }, note: Symbol.for('driver.default') })] } },
      ],
      expected: `${WHERE} record seq 2: payload.content[0].args.note: a symbol is not JSON data`,
    },
    {
      what: 'a list the driver tagged with a property',
      records: [inbox, opened, { ...assistant, payload: { turn: 0, step: 1, content: tagged } }],
      expected: `${WHERE} record seq 2: payload.content: array has holes or extra properties`,
    },
    {
      what: 'a lazily loaded column whose getter throws',
      records: [inbox, { ...opened, payload: lazy }],
      expected: `${WHERE} record seq 1: column "trigger" was not loaded and the connection is closed`,
    },
    {
      what: "a newer writer's ignorable record whose lazily loaded column throws",
      records: [inbox, { ...opened, type: 'audit.noted', ignorable: true, payload: lazy }],
      expected: `${WHERE} record seq 1: column "trigger" was not loaded and the connection is closed`,
    },
  ];
}

const odd = <T>(value: unknown): T => value as T;

/** `records` decoded as the host reads a store: refused with a LogReadError whose message is `expected` (the check named `what`). */
function refusedNamingIt(what: string, records: EventRecord[], expected: string): CheckResult[] {
  let error: unknown;
  try {
    decodeRecords(records, WHERE);
  } catch (e) {
    error = e;
  }
  const message = error instanceof Error ? error.message : String(error);
  const checks: CheckResult[] = [];
  checks.push({
    name: `${what}: refused`,
    passed: error instanceof LogReadError,
    message: error === undefined ? 'the record was decoded into a history' : `${error instanceof Error ? error.name : typeof error}: ${message}`,
  });
  checks.push({
    name: `${what}: the refusal names the conversation, the record and the field`,
    passed: message === expected,
    message: message === expected ? expected : `expected "${expected}", got "${message}"`,
    expected,
    actual: message,
  });
  return checks;
}

function revivedDateRefusedNamingIt(): CheckResult[] {
  return refusedNamingIt(
    'a revived Date',
    recordsWithARevivedDate(),
    `${WHERE} record seq 2: payload.content[0].args.when: an instance of Date is not plain JSON data`,
  );
}

/**
 * A store that parses each read (SQLite, Postgres: `readsOwnedJson`) hands the reader payloads nothing else holds,
 * which are frozen in place rather than copied (decode.ts `freezeParsed`): every object and array in them, as a copied
 * payload is. A nested object left unfrozen would let any reader of `log.events` (a team's observer, a checkpoint
 * hook) change a stored call's arguments in place (mutation seed 25, a Stryker timeout that was no kill: with nested
 * objects left unfrozen the gate passed). The scenarios read such stores but never try to write into what they read.
 */
function ownedJsonFrozenWhole(): CheckResult[] {
  const at = 1_700_000_000_000;
  const records: EventRecord[] = [
    { seq: 0, type: 'inbox.received', v: 1, at, ignorable: false, payload: { id: 'm1', intent: 'follow_up', text: 'Book me a call.', source: 'user' } },
    { seq: 1, type: 'turn.opened', v: 1, at, ignorable: false, payload: { turn: 0, trigger: 'm1' } },
    {
      seq: 2,
      type: 'assistant.message',
      v: 1,
      at,
      ignorable: false,
      payload: { turn: 0, step: 1, content: [{ type: 'tool_call', id: 'c1', name: 'book_call', args: { who: { name: 'Ada' }, slots: [{ day: 'Mon' }] } }] },
    },
  ];
  const unfrozen = (value: unknown, path: string, out: string[]): string[] => {
    if (typeof value !== 'object' || value === null) return out;
    if (!Object.isFrozen(value)) out.push(path);
    for (const [key, child] of Object.entries(value)) unfrozen(child, `${path}.${key}`, out);
    return out;
  };
  return [true, false].map((ownedJson) => {
    // As such a store reads them: JSON.parse of the stored text, for this read alone.
    const read = JSON.parse(JSON.stringify(records)) as EventRecord[];
    const events = decodeRecords(read, WHERE, 0, { ownedJson });
    const open = events.flatMap((e) => unfrozen(e.payload, `#${e.seq}.payload`, []));
    const what = ownedJson ? 'records a store parsed for this read (ownedJson), frozen in place' : 'records handed over as objects, copied';
    return {
      name: `${what}: every object and array of every payload frozen`,
      passed: open.length === 0,
      message: open.length === 0 ? 'all frozen' : `not frozen: ${open.join(', ')}`,
      expected: 'all frozen',
      actual: open.length === 0 ? 'all frozen' : open.join(', '),
    };
  });
}

/**
 * `LogReadError` is exported for a team's own store: a read it refuses whole (the connection closed mid-read, the
 * conversation's rows gone) has no record to name, and is thrown with no seq. Its message names where and why, and
 * no record: not "record seq undefined" (mutation seed 35, errors.ts). Every refusal the kernel's reader throws names
 * its record, as the cases above check.
 */
function readErrorWithoutARecordNamesOnlyWhere(): CheckResult[] {
  const error = new LogReadError(WHERE, undefined, 'the connection closed during the read');
  const want = `${WHERE}: the connection closed during the read`;
  return [
    { name: 'the message names where and why, no record', passed: error.message === want, message: error.message, expected: want, actual: error.message },
    { name: 'its seq is undefined', passed: error.seq === undefined, message: String(error.seq), expected: 'undefined', actual: String(error.seq) },
  ];
}

export function logReadCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:log/stored-record-not-json-refused-naming-it',
        title: 'log: a stored record whose payload holds data JSON cannot (a revived Date) is refused, naming the conversation, record and field',
        file: 'src/harness/log-read-cases.ts',
      },
      revivedDateRefusedNamingIt,
    ),
    checksCase(
      {
        id: 'contract:log/stored-records-garbled-by-a-driver-refused-each-naming-why',
        title: 'log: stored records a driver garbled (a type come back empty, a symbol-keyed property) are refused, each naming the record and what is wrong',
        file: 'src/harness/log-read-cases.ts',
      },
      () => garbledRecords().flatMap((g) => refusedNamingIt(g.what, g.records, g.expected)),
    ),
    checksCase(
      {
        id: 'contract:log/stored-records-a-row-mapper-got-wrong-refused-each-naming-why',
        title:
          'log: stored records a row mapper got wrong (no seq, undefined, a symbol, a tagged list, a throwing getter) are refused, each naming the record and what is wrong',
        file: 'src/harness/log-read-cases.ts',
      },
      () => mappedRecords().flatMap((g) => refusedNamingIt(g.what, g.records, g.expected)),
    ),
    checksCase(
      {
        id: 'contract:log/read-error-without-a-record-names-only-where',
        title: "log: a LogReadError a team's store throws for a read it refuses whole (no seq) names where and why, and no record",
        file: 'src/harness/log-read-cases.ts',
      },
      readErrorWithoutARecordNamesOnlyWhere,
    ),
    checksCase(
      {
        id: 'contract:log/read-payloads-frozen-whole',
        title:
          'log: stored records read back, parsed for this read (ownedJson) or handed over as objects, give payloads frozen whole: every nested object and array',
        file: 'src/harness/log-read-cases.ts',
      },
      ownedJsonFrozenWhole,
    ),
  ];
}
