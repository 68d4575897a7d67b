/**
 * The reference for `toFrozenLoggable` (src/kernel/log/plain-data.ts), which the
 * tool pipeline uses: what a JSON round trip gives, written plainly. Kept here,
 * beside the tests that compare against it; no product code imports it.
 *
 * What a tool returns is kept in the log, and the log takes plain JSON data only.
 * A JSON round trip is the conversion a reader would expect (Dates become ISO
 * strings via toJSON, `undefined` fields disappear); what JSON cannot express
 * (BigInt, cycles) is reported, not guessed at.
 */
export type PlainJson = { ok: true; value: unknown } | { ok: false; reason: string };

export function toPlainJson(value: unknown): PlainJson {
  if (value === undefined) return { ok: true, value: undefined };
  const direct = copyJsonShaped(value, []);
  if (direct !== NOT_JSON_SHAPED) return { ok: true, value: direct };
  try {
    const text = JSON.stringify(value);
    // A function or symbol at the top level stringifies to undefined.
    if (text === undefined) return { ok: false, reason: `a ${typeof value} is not JSON data` };
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

const NOT_JSON_SHAPED = Symbol('not JSON-shaped');

/**
 * The round trip's result for data that is already JSON-shaped — plain objects
 * and dense arrays of strings, booleans, null and finite numbers, nothing with a
 * `toJSON` — built directly (tools run on every step; stringify + parse cost
 * several times more). `-0` becomes `0`, as JSON makes it. Anything the round trip
 * would change or reject (undefined and function fields, NaN, Dates, holes,
 * cycles, ...) answers NOT_JSON_SHAPED and takes the round trip.
 */
function copyJsonShaped(value: unknown, ancestors: object[]): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : NOT_JSON_SHAPED;
    case 'object':
      break;
    default:
      return NOT_JSON_SHAPED;
  }
  if (value === null) return null;
  if (ancestors.includes(value) || (value as { toJSON?: unknown }).toJSON !== undefined) return NOT_JSON_SHAPED;
  const proto = Object.getPrototypeOf(value);
  ancestors.push(value);
  let out: unknown = NOT_JSON_SHAPED;
  if (proto === Array.prototype) {
    const array = value as unknown[];
    if (Object.keys(array).length === array.length) out = copyArray(array, ancestors);
  } else if (proto === Object.prototype || proto === null) {
    out = copyObject(value as Record<string, unknown>, ancestors);
  }
  ancestors.pop();
  return out;
}

function copyArray(array: readonly unknown[], ancestors: object[]): unknown {
  const out = new Array<unknown>(array.length);
  for (let i = 0; i < array.length; i++) {
    const v = copyJsonShaped(array[i], ancestors);
    if (v === NOT_JSON_SHAPED) return NOT_JSON_SHAPED;
    out[i] = v;
  }
  return out;
}

function copyObject(object: Record<string, unknown>, ancestors: object[]): unknown {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(object)) {
    if (key === '__proto__') return NOT_JSON_SHAPED; // JSON.parse makes it an own key; plain assignment would not
    const v = copyJsonShaped(object[key], ancestors);
    if (v === NOT_JSON_SHAPED) return NOT_JSON_SHAPED;
    out[key] = v;
  }
  return out;
}
