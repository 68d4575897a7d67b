/**
 * A model's result as the loop keeps it: its texts well-formed UTF-16. A model
 * (or a client that cut a stream between the two halves of a pair) can hand
 * back half a surrogate pair; kept as it came, it rides in every later request
 * of the conversation, and a provider that refuses ill-formed Unicode refuses
 * them all (outside probe 59, MED-1). Each half becomes U+FFFD — in the text,
 * the content blocks, the calls' ids, names and arguments (keys too), the stop
 * reason and a failure's message — as a tool's output is repaired
 * (tools/after.ts). A result that is well-formed already comes back as it was,
 * the same object.
 */
import type { ModelResult } from './client.ts';

export function wellFormedResult(result: ModelResult): ModelResult {
  return wellFormedData(result);
}

/** `value` with every string and key of its plain objects and arrays well-formed: itself when it is already. */
export function wellFormedData<T>(value: T): T {
  return holdsLoneSurrogate(value) ? (repaired(value) as T) : value;
}

/** Whether any string of `value` (a key included) holds half a surrogate pair. */
function holdsLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return !value.isWellFormed();
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (holdsLoneSurrogate(item)) return true;
    return false;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (!key.isWellFormed() || holdsLoneSurrogate((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

/** `value` with every string and key made well-formed (plain objects and arrays copied; anything else kept as it is). */
function repaired(value: unknown): unknown {
  if (typeof value === 'string') return value.toWellFormed();
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(repaired);
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  const out: Record<string, unknown> = {};
  for (const key in value) if (Object.hasOwn(value, key)) out[key.toWellFormed()] = repaired((value as Record<string, unknown>)[key]);
  return out;
}
