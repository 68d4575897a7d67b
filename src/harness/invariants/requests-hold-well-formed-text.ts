/**
 * Every text a request sends is well-formed Unicode: no half of a UTF-16
 * surrogate pair. A provider refuses such text (Anthropic: 400 "no low
 * surrogate in string"), and since the history is sent again on every turn, one
 * that reached the history wedges the conversation for good — after a restart
 * too. A user's message holding one is refused at the door; this holds what
 * else reaches a request: a tool's output cut inside an emoji (`.slice(0, n)`),
 * a redaction that cut a pair (outside probe 35, F4 and F7).
 *
 * Read from the requests as they left for the provider: the system prompt and
 * every string of every message (texts, call arguments, results).
 */
import type { SentRequest } from '../world/recording-model.ts';
import { defineInvariant } from './invariant.ts';

export const requestsHoldWellFormedText = defineInvariant({
  id: 'requests-hold-well-formed-text',
  title: 'no request sends half of a UTF-16 surrogate pair (a provider refuses it, and the history would carry it to every later turn)',
  check: (run) => halfPairIn(run.requests),
  checkObservable: (run) => halfPairIn(run.requests),
});

function halfPairIn(requests: readonly SentRequest[]): string | undefined {
  for (let r = 0; r < requests.length; r++) {
    const request = requests[r]!;
    const where = firstIllFormed(request.system, 'the system prompt') ?? firstIllFormed(request.messages, 'messages');
    if (where) return `request ${r + 1}: ${where} holds half of a surrogate pair`;
  }
  return undefined;
}

/** Where in `value` (a walk of its strings and keys) a string is not well-formed, as a path; undefined when none is. */
function firstIllFormed(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') {
    if (value.isWellFormed()) return undefined;
    const at = [...value].findIndex((c) => !c.isWellFormed());
    return `${path} (at ${at}: ${JSON.stringify(value.slice(Math.max(0, at - 20), at + 2))})`;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = firstIllFormed(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      const found = key.isWellFormed() ? firstIllFormed(inner, `${path}.${key}`) : `${path} (a key)`;
      if (found) return found;
    }
  }
  return undefined;
}
