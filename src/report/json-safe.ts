/**
 * Turns whatever a case recorded (`data`, `expected`, `actual` are `unknown`)
 * into plain JSON data, so no reporter can throw on a BigInt, a cycle or a
 * function, and nothing is silently turned into `null` that a person should see.
 */

export function jsonSafe(value: unknown): unknown {
  return convert(value, new Set<object>());
}

function convert(value: unknown, seen: Set<object>): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      // JSON would print NaN and Infinity as null; keep what actually happened.
      return Number.isFinite(value) ? value : String(value);
    case 'bigint':
      return `${value}n`;
    case 'undefined':
      return undefined;
    case 'function':
      return `[function ${value.name || 'anonymous'}]`;
    case 'symbol':
      return value.toString();
    case 'object':
      break;
  }
  if (value === null) return null;
  const object = value as object;
  if (seen.has(object)) return '[circular]';
  seen.add(object);
  try {
    if (Array.isArray(object)) return object.map((item) => convert(item, seen) ?? null);
    if (object instanceof Date) return Number.isNaN(object.getTime()) ? 'Invalid Date' : object.toISOString();
    if (object instanceof Error) return { name: object.name, message: object.message };
    if (object instanceof Map) return convert(Object.fromEntries(object), seen);
    if (object instanceof Set) return convert([...object], seen);
    const toJSON = (object as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return convert(toJSON.call(object), seen);
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(object)) {
      const converted = convert(item, seen);
      if (converted !== undefined) out[key] = converted;
    }
    return out;
  } finally {
    seen.delete(object);
  }
}

/** The same data with object keys sorted at every level: stable output for diffs. */
export function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeysDeep((value as Record<string, unknown>)[key]);
  return out;
}
