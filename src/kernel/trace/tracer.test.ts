/**
 * Invariant 8: no span left open at trace end — it becomes `undetermined`, dev
 * mode throws on lifecycle misuse, production mode records it. First completion
 * wins; ending twice is harmless.
 */
import { describe, expect, it } from 'vitest';
import { createRedactor } from '../redact/index.ts';
import { TraceLifecycleError, Tracer } from './tracer.ts';

const clock = () => {
  let t = 0;
  return { now: () => (t += 10) };
};

describe('Tracer', () => {
  it('records spans with parent links, kinds and statuses', () => {
    const tracer = new Tracer({ clock: clock(), traceId: 't' });
    const turn = tracer.startSpan('turn', 'turn 0');
    const model = turn.child('model_call', 'scripted', { step: 1 });
    model.end('ok', { result: 'tool_use' });
    const tool = turn.child('tool', 'lookup_order');
    tool.child('policy', 'allow').end('ok');
    tool.end('error');
    turn.end('ok', { outcome: 'replied' });
    const record = tracer.end();
    expect(record.spans.map((s) => [s.kind, s.status, s.parentId === undefined ? null : record.spans.find((p) => p.id === s.parentId)!.kind])).toEqual([
      ['turn', 'ok', null],
      ['model_call', 'ok', 'turn'],
      ['tool', 'error', 'turn'],
      ['policy', 'ok', 'tool'],
    ]);
    expect(record.spans[1]!.attributes).toEqual({ step: 1, result: 'tool_use' });
    expect(record.violations).toEqual([]);
  });

  it('first completion wins; ending twice is harmless', () => {
    const tracer = new Tracer({ clock: clock(), traceId: 't' });
    const span = tracer.startSpan('tool', 'x');
    span.end('cancelled', { why: 'first' });
    span.end('ok', { why: 'second' });
    expect(tracer.end().spans[0]).toMatchObject({ status: 'cancelled', attributes: { why: 'first' } });
  });

  it('a span still open at trace end becomes undetermined — recorded in production mode', () => {
    const tracer = new Tracer({ clock: clock(), traceId: 't', mode: 'production' });
    tracer.startSpan('turn', 'turn 0').child('tool', 'refund');
    const record = tracer.end();
    expect(record.spans.map((s) => s.status)).toEqual(['undetermined', 'undetermined']);
    expect(record.violations).toEqual(['spans left open at trace end: turn:turn 0, tool:refund']);
  });

  it('in dev mode an open span throws at trace end, after the record is complete', () => {
    const tracer = new Tracer({ clock: clock(), traceId: 't', mode: 'dev' });
    tracer.startSpan('model_call', 'm');
    expect(() => tracer.end()).toThrow(TraceLifecycleError);
    expect(tracer.end().spans[0]!.status).toBe('undetermined'); // the record survives for export
  });

  it('misuse after the end: dev throws, production records and keeps the exported record final', () => {
    const dev = new Tracer({ clock: clock(), traceId: 'd', mode: 'dev' });
    dev.end();
    expect(() => dev.startSpan('tool', 'late')).toThrow(/started after the trace ended/);

    const prod = new Tracer({ clock: clock(), traceId: 'p' });
    const open = prod.startSpan('tool', 'slow');
    const record = prod.end();
    open.end('ok');
    prod.startSpan('tool', 'late');
    expect(record.spans).toHaveLength(1);
    expect(record.spans[0]!.status).toBe('undetermined');
    expect(record.violations).toEqual(['spans left open at trace end: tool:slow']); // the exported record is final
    expect(prod.violations.join('\n')).toMatch(/ended after the trace ended[\s\S]*started after the trace ended/);
  });

  it("merges attribute sets in the order given (start, setAttributes, end): a later value wins, in the first one's place", () => {
    const tracer = new Tracer({ clock: clock(), traceId: 't', redact: createRedactor({ secrets: ['hunter22'] }) });
    const span = tracer.startSpan('tool', 'x hunter22', undefined, { a: 1, b: 'x' });
    span.setAttributes({ b: 'y hunter22', c: 2 });
    expect(tracer.snapshot()[0]).toMatchObject({ name: 'x [REDACTED]', attributes: { a: 1, b: 'y [REDACTED]', c: 2 }, status: undefined });
    span.end('ok', { a: 3 });
    span.setAttributes({ d: 4 }); // after the end: ignored
    const [record] = tracer.end().spans;
    expect(Object.entries(record!.attributes)).toEqual([
      ['a', 3],
      ['b', 'y [REDACTED]'],
      ['c', 2],
    ]);
    expect(Object.isFrozen(record)).toBe(true);
    expect(Object.isFrozen(record!.attributes)).toBe(true);
  });

  it('merges any number of sets as one spread of them all would, a `__proto__` key kept as data', () => {
    const sets: Record<string, string | number | boolean | null>[] = [
      { a: 1, b: 'x' },
      JSON.parse('{"__proto__": "p", "b": "y"}') as Record<string, string>,
      { c: 2, a: 5 },
      { d: true, b: 'z' },
      { e: null, c: 3 },
    ];
    const tracer = new Tracer({ clock: clock(), traceId: 't' });
    const span = tracer.startSpan('tool', 'x', undefined, sets[0]);
    for (const set of sets.slice(1, -1)) span.setAttributes(set);
    span.end('ok', sets[sets.length - 1]);
    const [record] = tracer.end().spans;
    const spread = sets.reduce<Record<string, unknown>>((into, set) => ({ ...into, ...set }), {});
    expect(Object.entries(record!.attributes)).toEqual(Object.entries(spread));
    expect(Object.getPrototypeOf(record!.attributes)).toBe(Object.prototype);
    expect(Object.hasOwn(record!.attributes, '__proto__')).toBe(true);
  });

  it('redacts string attributes', () => {
    const tracer = new Tracer({ clock: clock(), traceId: 't', redact: createRedactor({ secrets: ['hunter22'] }) });
    tracer.startSpan('tool', 'x', undefined, { args: 'password=hunter22', list: ['hunter22'] }).end('ok');
    expect(tracer.end().spans[0]!.attributes).toEqual({ args: 'password=[REDACTED]', list: ['[REDACTED]'] });
  });

  it('with a W3C trace context, every span has its own span id and a traceparent naming it; the record keeps the context', () => {
    let n = 0;
    const ids = () => (++n).toString(16).padStart(16, '0');
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const tracer = new Tracer({ clock: clock(), traceId: 't', w3c: { traceId, parentSpanId: '00f067aa0ba902b7', sampled: true, newSpanId: ids } });
    const turn = tracer.startSpan('turn', 'turn 0');
    const tool = turn.child('tool', 'lookup');
    expect(turn.traceparent).toBe(`00-${traceId}-0000000000000001-01`);
    expect(tool.traceparent).toBe(`00-${traceId}-0000000000000002-01`);
    tool.end('ok');
    turn.end('ok');
    const record = tracer.end();
    expect(record.context).toEqual({ traceId, parentSpanId: '00f067aa0ba902b7', sampled: true });
    expect(record.spans.map((s) => s.spanId)).toEqual(['0000000000000001', '0000000000000002']);

    const plain = new Tracer({ clock: clock(), traceId: 'p' });
    const span = plain.startSpan('turn', 'turn 0');
    expect(span.traceparent).toBeUndefined();
    span.end('ok');
    const untraced = plain.end();
    expect(untraced.context).toBeUndefined();
    expect('spanId' in untraced.spans[0]!).toBe(false);
  });

  it('an unsampled caller stays unsampled; a malformed trace or parent id is refused', () => {
    const newSpanId = () => 'a'.repeat(16);
    const unsampled = new Tracer({ clock: clock(), traceId: 't', w3c: { traceId: 'b'.repeat(32), sampled: false, newSpanId } });
    expect(unsampled.startSpan('turn', 'turn 0').traceparent).toBe(`00-${'b'.repeat(32)}-${'a'.repeat(16)}-00`);
    expect(() => new Tracer({ clock: clock(), traceId: 't', w3c: { traceId: '0'.repeat(32), sampled: true, newSpanId } })).toThrow(/trace id/);
    expect(() => new Tracer({ clock: clock(), traceId: 't', w3c: { traceId: 'B'.repeat(32), sampled: true, newSpanId } })).toThrow(/trace id/);
    expect(() => new Tracer({ clock: clock(), traceId: 't', w3c: { traceId: 'b'.repeat(32), parentSpanId: 'xyz', sampled: true, newSpanId } })).toThrow(
      /parent span id/,
    );
  });
});
