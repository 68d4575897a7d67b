import { describe, expect, it } from 'vitest';
import { LogAppendError } from './errors.ts';
import fc from 'fast-check';
import { createRedactor, redactDeep } from '../redact/index.ts';
import { toPlainJson } from '../../../test/support/plain-json.ts';
import { toFrozenLoggable, toFrozenPlainData } from './plain-data.ts';

function rejection(value: unknown): { field: string; message: string } {
  try {
    toFrozenPlainData(value, 'p');
  } catch (error) {
    expect(error).toBeInstanceOf(LogAppendError);
    return { field: (error as LogAppendError).field, message: (error as Error).message };
  }
  throw new Error('expected a rejection');
}

describe('toFrozenPlainData', () => {
  it('returns an equal, deeply frozen copy that shares nothing with the input', () => {
    const input = { a: 1, s: 'x', t: true, n: null, list: [1, { deep: ['y'] }], nested: { empty: {}, none: [] } };
    const out = toFrozenPlainData(input) as typeof input;
    expect(out).toEqual(input);
    expect(out).not.toBe(input);
    expect(out.list).not.toBe(input.list);
    expect(out.list[1]).not.toBe(input.list[1]);
    for (const o of [out, out.list, out.list[1], out.nested, out.nested.empty]) expect(Object.isFrozen(o)).toBe(true);
    expect(Object.isFrozen(input)).toBe(false);
  });

  it('keeps primitives and key order', () => {
    expect(toFrozenPlainData('s')).toBe('s');
    expect(toFrozenPlainData(0)).toBe(0);
    expect(toFrozenPlainData(null)).toBe(null);
    expect(Object.keys(toFrozenPlainData({ b: 1, a: 2, 1: 3 }) as object)).toEqual(['1', 'b', 'a']);
  });

  it('names the exact path of what is not JSON data, through objects and arrays', () => {
    expect(rejection({ a: [{ b: 1 }, { c: undefined }] })).toMatchObject({ field: 'p.a[1].c', message: expect.stringMatching(/undefined/) });
    expect(rejection({ x: { y: [0, 1, Number.NaN] } }).field).toBe('p.x.y[2]');
    expect(rejection([() => 1]).field).toBe('p[0]');
    expect(rejection({ big: 1n }).field).toBe('p.big');
    expect(rejection({ s: Symbol('s') }).field).toBe('p.s');
    expect(rejection({ d: new Date(0) })).toMatchObject({ field: 'p.d', message: expect.stringMatching(/instance of Date/) });
    expect(rejection({ [Symbol('k')]: 1 }).message).toMatch(/symbol-keyed/);
    const hidden = {};
    Object.defineProperty(hidden, Symbol('k'), { value: 1, enumerable: false });
    expect(rejection({ h: hidden })).toMatchObject({ field: 'p.h', message: expect.stringMatching(/symbol-keyed/) });
    expect(rejection({ holes: [1, , 3] }).message).toMatch(/holes/);
    const cyclic: Record<string, unknown> = { k: 1 };
    cyclic.again = { back: cyclic };
    expect(rejection(cyclic)).toMatchObject({ field: 'p.again.back', message: expect.stringMatching(/cycle/) });
  });

  it('accepts an object reached twice without a cycle, copying it each time', () => {
    const shared = { v: 1 };
    const out = toFrozenPlainData({ a: shared, b: [shared] }) as { a: object; b: object[] };
    expect(out).toEqual({ a: { v: 1 }, b: [{ v: 1 }] });
  });

  it('reads each property once, and stores what it read', () => {
    let reads = 0;
    const input = {
      get v(): unknown {
        reads++;
        return reads === 1 ? 'first' : () => 'second';
      },
    };
    expect(toFrozenPlainData(input)).toEqual({ v: 'first' });
    expect(reads).toBe(1);
  });

  it('keeps a "__proto__" key (as parsed JSON can have) as data', () => {
    const out = toFrozenPlainData(JSON.parse('{"__proto__":{"x":1},"y":2}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__', 'y']);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"x":1},"y":2}');
  });

  it('accepts objects without a prototype', () => {
    const bare = Object.assign(Object.create(null) as object, { k: 'v' });
    expect(toFrozenPlainData({ bare })).toEqual({ bare: { k: 'v' } });
  });
});

describe('toFrozenPlainData on its own recent results', () => {
  it('returns a value it just produced as it is (already checked, frozen and equal)', () => {
    const first = toFrozenPlainData({ a: [1, { b: 'c' }] });
    expect(toFrozenPlainData(first)).toBe(first);
  });

  it('still copies an equal value it did not produce, even when frozen', () => {
    const frozen = Object.freeze({ a: Object.freeze([1]) });
    const out = toFrozenPlainData(frozen);
    expect(out).toEqual(frozen);
    expect(out).not.toBe(frozen);
  });

  it('still checks a frozen value it did not produce', () => {
    expect(() => toFrozenPlainData(Object.freeze({ d: new Date(0) }))).toThrow(/instance of Date/);
  });
});

describe('toFrozenLoggable: how tool arguments and output are logged', () => {
  const SECRET = 'hunter2-very-secret-value';
  const anything = fc.oneof(
    fc.anything({ withBigInt: true, withDate: true, withMap: true, withNullPrototype: true, withSparseArray: true, withUnicodeString: true }),
    fc.dictionary(fc.constantFrom('a', SECRET, `x ${SECRET}`, '__proto__', '1'), fc.oneof(fc.string(), fc.constant(SECRET), fc.double()), { maxKeys: 4 }),
  );

  it('is redactDeep of the JSON round trip (toPlainJson), frozen all the way down', () => {
    const redact = createRedactor({ secrets: [SECRET] });
    fc.assert(
      fc.property(anything, (value) => {
        const logged = toFrozenLoggable(value, redact);
        const plain = toPlainJson(value);
        if (!plain.ok) {
          expect(logged).toEqual({ ok: false, reason: plain.reason });
          return;
        }
        expect(logged.ok).toBe(true);
        if (!logged.ok) return;
        const expected = plain.value === undefined ? undefined : redactDeep(plain.value, redact);
        expect(JSON.stringify(logged.value)).toBe(JSON.stringify(expected));
        expect(logged.value).toEqual(expected);
        expect(JSON.stringify(logged.plain)).toBe(JSON.stringify(plain.value));
        const frozenDeep = (v: unknown): boolean => v === null || typeof v !== 'object' || (Object.isFrozen(v) && Object.values(v).every(frozenDeep));
        expect(frozenDeep(logged.value)).toBe(true);
      }),
      { numRuns: 1_500 },
    );
  });

  it('is kept as it is where a copy under the same redactor (or none) is asked for, and copied under another', () => {
    const redact = createRedactor({ secrets: [SECRET] });
    const logged = toFrozenLoggable({ a: [1, { b: 'x' }] }, redact);
    if (!logged.ok) throw new Error('expected ok');
    expect(toFrozenPlainData(logged.value, 'p', redact)).toBe(logged.value);
    expect(toFrozenPlainData(logged.value, 'p')).toBe(logged.value);
    const other = toFrozenPlainData(logged.value, 'p', createRedactor({ secrets: ['x-other-secret'] }));
    expect(other).not.toBe(logged.value);
    expect(other).toEqual(logged.value);
    // An equal value not made by toFrozenLoggable is copied.
    const lookalike = Object.freeze({ a: Object.freeze([1, Object.freeze({ b: 'x' })]) });
    expect(toFrozenPlainData(lookalike, 'p', redact)).not.toBe(lookalike);
  });

  it('made with a redactor that then repairs half pairs, is kept where its own redactor is asked for (a tool output)', () => {
    const redact = createRedactor({ secrets: [SECRET] });
    const repairing = (text: string) => redact(text).toWellFormed();
    const logged = toFrozenLoggable({ name: `Zo\ud83d`, note: SECRET }, repairing, redact);
    if (!logged.ok) throw new Error('expected ok');
    expect(logged.value).toEqual({ name: 'Zo\ufffd', note: '[REDACTED]' });
    expect(toFrozenPlainData(logged.value, 'p', redact)).toBe(logged.value);
    expect(toFrozenPlainData(logged.value, 'p', repairing)).not.toBe(logged.value);
  });
});
