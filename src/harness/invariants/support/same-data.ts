/** Comparing values as JSON data, whatever the order of their keys. */

/**
 * Equal as data, whatever the order of keys: as their JSON texts with keys sorted
 * would be (a key whose value is undefined is no key), compared in place — a long
 * conversation compares a thousand messages per request, and building their texts
 * cost more than the rest of the case.
 */
export function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return JSON.stringify(a) === JSON.stringify(b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    if (a.length !== other.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameData(a[i], other[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let keys = 0;
  for (const key of Object.keys(x)) {
    if (x[key] === undefined) continue;
    keys++;
    if (!Object.hasOwn(y, key) || !sameData(x[key], y[key])) return false;
  }
  for (const key of Object.keys(y)) if (y[key] !== undefined) keys--;
  return keys === 0;
}

/** Where two message lists first differ, for a violation's sentence. */
export function firstDifference(actual: readonly unknown[], expected: readonly unknown[]): string {
  for (let i = 0; i < Math.max(actual.length, expected.length); i++) {
    if (!sameData(actual[i], expected[i]))
      return `message ${i} is ${JSON.stringify(actual[i]) ?? 'missing'}, the reference has ${JSON.stringify(expected[i]) ?? 'nothing'}`;
  }
  return 'they differ';
}
