import { describe, expect, it } from 'vitest';
import { spread } from './spread.ts';

describe('spread', () => {
  it('takes every item up to the limit', () => {
    expect(spread(0, 8)).toEqual([]);
    expect(spread(8, 8)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('past it, the limit exactly: both ends whole, the middle evenly, in order, none twice', () => {
    const got = spread(1_000, 200);
    expect(got).toHaveLength(200);
    expect(got.slice(0, 50)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(got.slice(-50)).toEqual(Array.from({ length: 50 }, (_, i) => 950 + i));
    expect(new Set(got).size).toBe(200);
    expect([...got].sort((a, b) => a - b)).toEqual(got);
    // The middle 100 cover 50 … 949 with gaps of 9 (900 items, 100 taken).
    const middle = got.slice(50, 150);
    expect(Math.max(...middle.slice(1).map((x, i) => x - middle[i]!))).toBeLessThanOrEqual(10);
  });
});
