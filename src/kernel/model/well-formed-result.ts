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
  return resultHoldsLoneSurrogate(result) ? (repaired(result) as ModelResult) : result;
}

/**
 * Whether a result of a known type holds half a pair where the loop reads one:
 * its texts, its blocks' and calls' fields and arguments (keys too), a failure's
 * message and kind, a refusal's details. Field by field rather than by the
 * generic walk, which costs three times as much on every step (a call's
 * arguments are most often its block's, walked once). A result of a type the
 * loop does not know is walked whole.
 */
function resultHoldsLoneSurrogate(result: ModelResult): boolean {
  const r = result as ModelResult & Partial<Record<'text' | 'stopReason' | 'message' | 'kind', unknown>> & { details?: unknown };
  switch (r.type) {
    case 'reply':
    case 'tool_use':
    case 'max_tokens':
    case 'refusal':
    case 'context_window_exceeded':
    case 'unknown':
    case 'transport_error':
      break;
    default:
      return holdsLoneSurrogate(r);
  }
  if (illFormed(r.text) || illFormed(r.stopReason) || illFormed(r.message) || illFormed(r.kind)) return true;
  const content = 'content' in r ? r.content : undefined;
  if (Array.isArray(content)) {
    for (let i = 0; i < content.length; i++) {
      const entry: unknown = content[i];
      // Not a block (where the shape check leaves content alone for the result's type): walked whole, never read into.
      if (typeof entry !== 'object' || entry === null) {
        if (holdsLoneSurrogate(entry)) return true;
        continue;
      }
      const block = entry as Partial<Record<'type' | 'text' | 'id' | 'name' | 'repeatOf' | 'args', unknown>>;
      if (illFormed(block.type) || illFormed(block.text) || illFormed(block.id) || illFormed(block.name) || illFormed(block.repeatOf)) return true;
      if (holdsLoneSurrogate(block.args)) return true;
    }
  }
  const calls = 'calls' in r ? r.calls : undefined;
  if (Array.isArray(calls)) {
    for (let i = 0; i < calls.length; i++) {
      const entry: unknown = calls[i];
      if (typeof entry !== 'object' || entry === null) {
        if (holdsLoneSurrogate(entry)) return true;
        continue;
      }
      const call = entry as Partial<Record<'id' | 'name' | 'rawArgs' | 'args', unknown>>;
      if (illFormed(call.id) || illFormed(call.name) || illFormed(call.rawArgs)) return true;
      if (!walkedWithABlock(call.args, content) && holdsLoneSurrogate(call.args)) return true;
    }
  }
  return r.details !== undefined && holdsLoneSurrogate(r.details);
}

/** Whether `args` (an object) are a block's of `content`, walked with it already. */
function walkedWithABlock(args: unknown, content: unknown): boolean {
  if (typeof args !== 'object' || args === null || !Array.isArray(content)) return false;
  for (let i = 0; i < content.length; i++) {
    const block: unknown = content[i];
    if (typeof block === 'object' && block !== null && (block as { args?: unknown }).args === args) return true;
  }
  return false;
}

function illFormed(value: unknown): boolean {
  return typeof value === 'string' && !value.isWellFormed();
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
