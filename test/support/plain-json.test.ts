import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toPlainJson } from './plain-json.ts';

/** The definition: a JSON round trip, or the reason it fails. */
function roundTrip(value: unknown) {
  if (value === undefined) return { ok: true, value: undefined };
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return { ok: false, reason: `a ${typeof value} is not JSON data` };
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

describe('toPlainJson', () => {
  it('equals a JSON round trip for any value (the direct copy of JSON-shaped data changes nothing)', () => {
    const anything = fc.anything({
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withSparseArray: true,
      withTypedArray: true,
      withUnicodeString: true,
    });
    fc.assert(
      fc.property(anything, (value) => {
        expect(toPlainJson(value)).toEqual(roundTrip(value));
      }),
      { numRuns: 2_000 },
    );
  });

  it('the edges the round trip decides: -0, NaN, undefined fields, toJSON, holes, __proto__, cycles, BigInt', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const cases: unknown[] = [
      -0,
      { z: -0, list: [-0] },
      { n: Number.NaN, i: Number.POSITIVE_INFINITY },
      { u: undefined, f: () => 1, keep: 1 },
      [undefined, () => 1],
      { when: new Date(0) },
      { custom: { toJSON: () => 'custom' } },
      { notCallable: { toJSON: 5 } },
      [1, , 3], // a hole becomes null
      JSON.parse('{"__proto__":{"x":1}}'),
      Object.assign(Object.create(null) as object, { k: 'v' }),
      cyclic,
      { big: 1n },
      () => 1,
      Symbol('s'),
    ];
    for (const value of cases) expect(toPlainJson(value)).toEqual(roundTrip(value));
    expect(Object.is((toPlainJson({ z: -0 }) as { value: { z: number } }).value.z, 0)).toBe(true);
  });

  it('copies: the result shares nothing with the input', () => {
    const input = { a: { b: [1, { c: 'd' }] } };
    const out = toPlainJson(input) as { ok: true; value: typeof input };
    expect(out.value).toEqual(input);
    expect(out.value.a).not.toBe(input.a);
    expect(out.value.a.b[1]).not.toBe(input.a.b[1]);
  });
});
