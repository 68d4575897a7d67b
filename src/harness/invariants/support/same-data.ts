/** Comparing values as JSON data, whatever the order of their keys. */

/** Equal as data, whatever the order of keys. */
export function sameData(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

/** Where two message lists first differ, for a violation's sentence. */
export function firstDifference(actual: readonly unknown[], expected: readonly unknown[]): string {
  for (let i = 0; i < Math.max(actual.length, expected.length); i++) {
    if (!sameData(actual[i], expected[i]))
      return `message ${i} is ${JSON.stringify(actual[i]) ?? 'missing'}, the reference has ${JSON.stringify(expected[i]) ?? 'nothing'}`;
  }
  return 'they differ';
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}
