import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sameData } from './same-data.ts';

/** The plain definition: JSON texts with keys sorted (a key holding undefined is no key). */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined);
    return `{${keys
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

function shuffledKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shuffledKeys);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, shuffledKeys(v)]),
    );
  return value;
}

const data = fc.jsonValue({ maxDepth: 3 }).map((v) => v as unknown);
const near = fc.oneof(data, fc.constantFrom<unknown>(undefined, null, 0, '', [], {}, { a: undefined }, [undefined]));

describe('sameData', () => {
  it('is equality of JSON texts with keys sorted', () => {
    fc.assert(fc.property(near, near, (a, b) => sameData(a, b) === (sortedJson(a) === sortedJson(b))));
  });

  it('holds whatever the order of keys, and not for a changed value', () => {
    fc.assert(fc.property(data, (a) => sameData(a, shuffledKeys(a))));
    expect(sameData({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'y' }], a: 1 })).toBe(false);
    expect(sameData({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameData({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameData([], {})).toBe(false);
  });
});
