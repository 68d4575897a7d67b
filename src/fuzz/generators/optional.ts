/** Helpers for values that are present only sometimes; they shrink towards absent. */
import fc from 'fast-check';

/** Present in about `percent`% of cases. */
export function sometimes<T>(arb: fc.Arbitrary<T>, percent: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ withCrossShrink: true }, { weight: 100 - percent, arbitrary: fc.constant(undefined) }, { weight: percent, arbitrary: arb });
}

/** A record whose keys are each present in about `percent`% of cases; absent keys are left out (never `undefined`). */
export function sparseRecord<T extends Record<string, unknown>>(fields: { [K in keyof T]: fc.Arbitrary<T[K]> }, percent: number): fc.Arbitrary<Partial<T>> {
  const entries = Object.entries(fields) as [keyof T & string, fc.Arbitrary<unknown>][];
  return fc.tuple(...entries.map(([, arb]) => sometimes(arb, percent))).map((values) => {
    const out: Partial<T> = {};
    values.forEach((v, i) => {
      if (v !== undefined) (out as Record<string, unknown>)[entries[i]![0]] = v;
    });
    return out;
  });
}
