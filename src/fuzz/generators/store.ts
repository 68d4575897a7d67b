/**
 * Store faults: which batch appends fail (1-based, over the whole scenario), and
 * where the process crashes — an event index; the crash property keeps what the
 * store had committed before that event, reopens it (SQLite) and recovers.
 */
import fc from 'fast-check';

export const failAppendsArb: fc.Arbitrary<number[]> = fc
  .uniqueArray(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 3 })
  .map((a) => a.sort((x, y) => x - y));

/**
 * Which write-aheads the store refuses (the append holding the n-th start record
 * of a STATEFUL or CRITICAL call): a fault that lands on the record the loop
 * waits for before it runs a call, which an append number finds only by chance.
 */
export const failWriteAheadsArb: fc.Arbitrary<number[]> = fc.oneof(
  { withCrossShrink: true },
  { weight: 3, arbitrary: fc.constant<number[]>([1]) },
  { weight: 1, arbitrary: fc.uniqueArray(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 2 }).map((a) => a.sort((x, y) => x - y)) },
);

/** An event index; reduced modulo the run's length + 1 (the last value: after everything). */
export const crashAtArb: fc.Arbitrary<number> = fc.nat({ max: 400 });
