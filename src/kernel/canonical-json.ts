/**
 * JSON text of plain data with object keys sorted, so two values that hold the
 * same data compare equal as strings whatever order their keys were sent in.
 * `__proto__` and `constructor` stay ordinary keys (Object.fromEntries defines
 * own properties).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}
