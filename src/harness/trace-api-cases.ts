/**
 * The tracer as a team's own code meets it (`Tracer`, `Deferred`, `NO_SPAN` and
 * the W3C id checks are exported), as cases of `loopgate run`:
 * `contract:trace-api/<id>`.
 *
 * The loop gives a tracer a W3C context only from a `traceparent` the host has
 * already parsed, sets at most three attribute sets on a span, never reads a
 * span's `ended`, and defers only text; a team's executor or exporter does all
 * of these. Checked: a parent span id that is no W3C span id is refused naming
 * it (a good one accepted); every attribute set given to a span is in its
 * record, also a fourth and later; a deferred attribute that computes a number
 * keeps the number; `ended` says whether the span ended; `NO_SPAN` hands out
 * itself as a child and records nothing.
 */
import { Deferred, isSpanId, NO_SPAN, Tracer } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';
import { VirtualClock } from './virtual-clock.ts';

const FILE = 'src/harness/trace-api-cases.ts';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const check = (name: string, passed: boolean, actual: string, expected: string): CheckResult => ({ name, passed, message: actual, expected, actual });

function w3cParent(): CheckResult[] {
  let n = 0;
  const make = (parentSpanId: string) => {
    try {
      new Tracer({
        clock: new VirtualClock(),
        traceId: 'turn-0',
        w3c: { traceId: TRACE_ID, parentSpanId, sampled: true, newSpanId: () => (++n).toString(16).padStart(16, '0') },
      });
      return 'accepted';
    } catch (error) {
      return `refused: ${error instanceof Error ? error.message : String(error)}`;
    }
  };
  // Upper case (as a proxy may rewrite it) and all zeros (W3C's invalid id) are no span ids.
  const upper = make('00F067AA0BA902B7');
  const zeros = make('0000000000000000');
  const good = make('00f067aa0ba902b7');
  const want = (id: string) => `refused: trace context: parent span id "${id}" is not 16 lowercase hex digits (not all zero)`;
  // The record's context carries the parent the host parsed (an exporter links the root to it), and no parent key without one.
  const contextOf = (parentSpanId?: string): string => {
    const tracer = new Tracer({
      clock: new VirtualClock(),
      traceId: 'turn-0',
      w3c: { traceId: TRACE_ID, ...(parentSpanId !== undefined ? { parentSpanId } : {}), sampled: true, newSpanId: () => (++n).toString(16).padStart(16, '0') },
    });
    tracer.startSpan('turn', 'turn 0').end('ok');
    const context = tracer.end().context;
    return context === undefined ? '(no context)' : `${JSON.stringify(context)}; parentSpanId key: ${'parentSpanId' in context}`;
  };
  const withParent = contextOf('00f067aa0ba902b7');
  const withoutParent = contextOf();
  const wantWith = `{"traceId":"${TRACE_ID}","parentSpanId":"00f067aa0ba902b7","sampled":true}; parentSpanId key: true`;
  const wantWithout = `{"traceId":"${TRACE_ID}","sampled":true}; parentSpanId key: false`;
  return [
    check("the trace record's context keeps the parent span id", withParent === wantWith, withParent, wantWith),
    check("without one, the record's context has no parent span id key", withoutParent === wantWithout, withoutParent, wantWithout),
    check('an upper-case parent span id is refused, naming it', upper === want('00F067AA0BA902B7'), upper, want('00F067AA0BA902B7')),
    check('an all-zero parent span id is refused', zeros === want('0000000000000000'), zeros, want('0000000000000000')),
    check('a lowercase one is accepted', good === 'accepted', good, 'accepted'),
    check(
      'isSpanId agrees',
      !isSpanId('00F067AA0BA902B7') && isSpanId('00f067aa0ba902b7'),
      `${isSpanId('00F067AA0BA902B7')}, ${isSpanId('00f067aa0ba902b7')}`,
      'false, true',
    ),
  ];
}

function spanRecords(): CheckResult[] {
  const tracer = new Tracer({ clock: new VirtualClock(), traceId: 'turn-0' });
  const root = tracer.startSpan('turn', 'turn 0', undefined, { step: 1 });
  const work = root.child('tool', 'export batch', { batch: 'b1' });
  work.setAttributes({ rows: 10 });
  work.setAttributes({ retries: 0 });
  work.setAttributes({ region: 'eu' });
  work.setAttributes({ size: new Deferred(() => 4096) });
  const before = work.ended;
  work.end('ok', { done: true });
  const after = work.ended;
  // A team's executor that sets attributes on a span it already ended (a late callback): first completion wins, so
  // they are not recorded. Mutation seed 48: src/kernel/trace/tracer.ts:275:9 `this.#status !== undefined` → `false`
  // in `setAttributes` recorded them (the record is built at the trace's end); nothing set attributes after an end.
  work.setAttributes({ rows: 11, late: true });
  root.end('ok');
  const record = tracer.end().spans.find((s) => s.name === 'export batch');
  const attrs = JSON.stringify(record?.attributes ?? null);
  const want = '{"batch":"b1","rows":10,"retries":0,"region":"eu","size":4096,"done":true}';
  const child = NO_SPAN.child('tool', 'nothing');
  return [
    check('every attribute set is in the record, the fourth and later too; a deferred number stays a number', attrs === want, attrs, want),
    check('attributes set after the span ended are not recorded', attrs === want, attrs, want),
    check('ended: false before end, true after', before === false && after === true, `${before}, ${after}`, 'false, true'),
    check('NO_SPAN hands out itself as a child', child === NO_SPAN, child === NO_SPAN ? 'NO_SPAN' : 'another span', 'NO_SPAN'),
    // It stands in for a span in code run without a tracer, which may end a span unless `ended` says it was.
    check('NO_SPAN reads as not ended, as a span before its end', NO_SPAN.ended === false, String(NO_SPAN.ended), 'false'),
  ];
}

export function traceApiCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:trace-api/w3c-parent-span-id-checked',
        title: 'trace api: a W3C parent span id that is not 16 lowercase hex digits is refused, naming it',
        file: FILE,
      },
      w3cParent,
    ),
    checksCase(
      {
        id: 'contract:trace-api/span-records-keep-every-attribute',
        title:
          "trace api: a span's record keeps every attribute set (a fourth, a deferred number), none set after its end; ended; NO_SPAN's child, and NO_SPAN not ended",
        file: FILE,
      },
      spanRecords,
    ),
  ];
}
