/**
 * Argument text holding two JSON objects is refused, never run with one of them
 * (seed 000 §5: the lenient layer repairs only what cannot change the meaning;
 * lenient-parse.ts: "one JSON object embedded in prose"). A model that writes
 * `{"amount": 50} … actually {"amount": 5}` has not said which call it means:
 * running the first (or the last) guesses, and the guess may be the refund the
 * model corrected. The call must be answered INVALID_ARGUMENTS so the model
 * sends one.
 *
 * Judged with a scan of its own (not the kernel's): outside strings, the text's
 * top-level `{…}` spans that each parse as a JSON object; with two or more, and
 * the text not JSON as a whole, no `tool.started` follows for that call.
 */
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { viewOf } from './support/log-view.ts';

export const twoObjectsNeverRun = defineInvariant({
  id: 'two-objects-never-run',
  title: 'a call whose argument text holds two JSON objects is refused, not run with one of them',
  appliesTo: loopgateOnly('the calls’ text and starts are in loopgate’s event log'),
  check: (run) => neverRun(run),
});

function neverRun(run: ScenarioRun): string | undefined {
  const ambiguous = new Map<string, number>();
  for (const e of viewOf(run).known) {
    if (e.type === 'assistant.message') {
      for (const block of e.payload.content) {
        if (block.type !== 'tool_call' || typeof block.args !== 'string') continue;
        const n = objectsIn(block.args);
        if (n >= 2) ambiguous.set(block.id, n);
        else ambiguous.delete(block.id);
      }
      continue;
    }
    if (e.type === 'tool.started') {
      const n = ambiguous.get(e.payload.callId);
      if (n !== undefined)
        return `call ${e.payload.callId} to ${e.payload.name} started (seq ${e.seq}), but its argument text holds ${n} JSON objects: it says no one call`;
    }
  }
  return undefined;
}

/** Top-level `{…}` spans (outside strings) of `text` that parse as JSON objects; 0 when the whole text is JSON. */
export function objectsIn(text: string): number {
  if (parses(text.trim())) return 0;
  let count = 0;
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      if (depth > 0) inString = true; // quotes in prose outside any object are prose
    } else if (ch === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === '}' && depth > 0) {
      depth--;
      if (depth === 0) {
        const value = parsedValue(text.slice(start, i + 1));
        if (value !== null && typeof value === 'object' && !Array.isArray(value)) count++;
      }
    }
  }
  return count;
}

function parses(text: string): boolean {
  return parsedValue(text) !== undefined;
}

function parsedValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
