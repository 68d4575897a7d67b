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

function revivedDateRefusedNamingIt(): CheckResult[] {
  let error: unknown;
  try {
    decodeRecords(recordsWithARevivedDate(), WHERE);
  } catch (e) {
    error = e;
  }
  const message = error instanceof Error ? error.message : String(error);
  const checks: CheckResult[] = [];
  checks.push({
    name: 'refused',
    passed: error instanceof LogReadError,
    message: error === undefined ? 'the record was decoded into a history' : `${error instanceof Error ? error.name : typeof error}: ${message}`,
  });
  const expected = `${WHERE} record seq 2: payload.content[0].args.when: an instance of Date is not plain JSON data`;
  checks.push({
    name: 'the refusal names the conversation, the record and the field',
    passed: message === expected,
    message: message === expected ? expected : `expected "${expected}", got "${message}"`,
    expected,
    actual: message,
  });
  return checks;
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
  ];
}
