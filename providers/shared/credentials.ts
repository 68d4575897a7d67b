/**
 * Keeps the client's own credential out of what it returns. A provider or a
 * gateway may quote the key it was sent in an error body ("Invalid API key
 * provided: …"); the SDK puts that body into its error message, and the
 * message into the result — from where it would reach the log, the traces and
 * every report. Each string that holds the key, in any form the redactor knows,
 * has it replaced; a result without one is returned as it is. The same holds
 * for the deltas streamed before it (`credentialDeltas`).
 */
import type { ModelDelta, ModelResult } from '../../src/kernel/index.ts';
import { createRedactor, DeltaStreams, exactSecretStream, redactEncodedForms, secretFinder } from '../../src/kernel/index.ts';

export function withoutCredentials(result: ModelResult, credentials: readonly string[]): ModelResult {
  const keys = credentials.filter((c) => c.length > 0);
  if (keys.length === 0) return result;
  const finders = keys.map(secretFinder);
  const scrub = (value: unknown): unknown => {
    if (typeof value === 'string') return finders.some((has) => has(value)) ? redactEncodedForms(value, keys) : value;
    if (Array.isArray(value)) {
      const out = value.map(scrub);
      return out.some((item, i) => item !== value[i]) ? out : value;
    }
    if (value !== null && typeof value === 'object') {
      let changed = false;
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        const next = scrub(item);
        if (next !== item) changed = true;
        out[key] = next;
      }
      return changed ? out : value;
    }
    return value;
  };
  return scrub(result) as ModelResult;
}

/**
 * The call's deltas with the client's credentials kept out: the text and each
 * call's arguments go through their own stream, held back only where a form of
 * a key may begin (so a key split across deltas is let out whole, redacted);
 * a call's id and name are redacted as they come. `end()` lets out the rest.
 * Undefined without credentials: the deltas pass as they are.
 */
export function credentialDeltas(credentials: readonly string[]): { push(delta: ModelDelta): ModelDelta[]; end(): ModelDelta[] } | undefined {
  const keys = credentials.filter((c) => c.length > 0);
  if (keys.length === 0) return undefined;
  const redact = createRedactor({ secrets: keys, patterns: [] });
  const streams = new DeltaStreams(redact, () => exactSecretStream(keys));
  return {
    push(delta) {
      if (delta.kind !== 'tool_call_start') return streams.push(delta);
      const id = redact(delta.id);
      const name = redact(delta.name);
      return streams.push(id === delta.id && name === delta.name ? delta : { ...delta, id, name });
    },
    end: () => streams.end(),
  };
}
