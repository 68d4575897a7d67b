/**
 * Arguments a model sent as text are read as the text says (seed 000 §5: the
 * lenient layer repairs only what cannot change their meaning). Judged against a
 * deliberately naive reference reading of the text — JSON as it is, else with a
 * markdown code fence taken off, else with the commas before a `}` or `]`
 * dropped (outside strings) — written here, not the kernel's parser:
 * - text the reference reads as one JSON object is never refused as "not a JSON
 *   object" (INVALID_ARGUMENTS for unparseable text);
 * - a call that started has, for each field it started with, the value the
 *   reference read for that field (a repair that drops a comma between two
 *   array items, say, runs a different call than the model wrote);
 * - text the reference cannot read, with a bracket outside its first `{` and
 *   last `}`, never starts a call: an object in it is taken as part of a larger
 *   structure — a list, an object cut short — and taken alone it would be a
 *   different call (outside probe 69, lenient-embedded-in-structure). The rule
 *   is conservative, as the lenient layer's own: a bracket in the prose around
 *   an object (`see [docs]: {…}`) counts too. An object with only bracket-free
 *   prose around it may be repaired; that is not judged here.
 * Arguments sent as data (not text) are not this check's: the adapter parsed them.
 */
import type { LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { viewOf } from './support/log-view.ts';

const UNPARSEABLE = 'the arguments are not a JSON object';

export const argumentsReadAsSent = defineInvariant({
  id: 'arguments-read-as-sent',
  title: 'arguments sent as text with a trailing comma or a code fence are repaired, not refused, and run with the values written',
  appliesTo: loopgateOnly('the calls’ text and results are in loopgate’s event log'),
  check: (run) => readAsSent(run),
});

function readAsSent(run: ScenarioRun): string | undefined {
  const texts = new Map<string, { readonly text: string; readonly value: Record<string, unknown> }>();
  const inStructure = new Map<string, string>();
  for (const e of viewOf(run).known) {
    if (e.type === 'assistant.message') {
      for (const block of e.payload.content) {
        if (block.type !== 'tool_call' || typeof block.args !== 'string') continue;
        const value = referenceRead(block.args);
        if (value !== undefined) texts.set(block.id, { text: block.args, value });
        else if (bracketOutsideTheObject(block.args)) inStructure.set(block.id, block.args);
      }
      continue;
    }
    if (e.type === 'tool.result') {
      const sent = texts.get(e.payload.callId);
      if (sent && e.payload.error?.error_code === 'INVALID_ARGUMENTS' && e.payload.error.error_message.includes(UNPARSEABLE)) {
        return `call ${e.payload.callId} to ${e.payload.name} was refused as unparseable (seq ${e.seq}), but its text reads as a JSON object: ${clip(sent.text)}`;
      }
      continue;
    }
    if (e.type === 'tool.started') {
      const structure = inStructure.get(e.payload.callId);
      if (structure !== undefined)
        return `call ${e.payload.callId} to ${e.payload.name} started (seq ${e.seq}) from text whose objects lie inside a larger structure (a bracket outside them), which is no call: ${clip(structure)}`;
      const sent = texts.get(e.payload.callId);
      if (!sent) continue;
      const wrong = differingField(e, sent.value);
      if (wrong !== undefined)
        return `call ${e.payload.callId} to ${e.payload.name} started (seq ${e.seq}) with ${wrong}, which its text does not say: ${clip(sent.text)}`;
    }
  }
  return undefined;
}

function differingField(e: Extract<LogEvent, { type: 'tool.started' }>, expected: Record<string, unknown>): string | undefined {
  const args = e.payload.args;
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return undefined; // not an object: arguments-validated judges it
  for (const [key, value] of Object.entries(args)) {
    if (!Object.hasOwn(expected, key)) continue; // a schema default: not the text's
    if (JSON.stringify(value) !== JSON.stringify(expected[key])) return `${key} = ${clip(JSON.stringify(value) ?? '')}`;
  }
  return undefined;
}

function clip(text: string): string {
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
}

/** The text as one JSON object: as it is, unfenced, or without trailing commas; else undefined. */
export function referenceRead(text: string): Record<string, unknown> | undefined {
  const trimmed = text.trim();
  const fence = /^```[A-Za-z0-9_-]*[ \t]*\r?\n([\s\S]*?)\r?\n?```$/.exec(trimmed);
  const inner = fence ? fence[1]!.trim() : trimmed;
  for (const candidate of [trimmed, inner, withoutTrailingCommas(inner)]) {
    const value = parsed(candidate);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  }
  return undefined;
}

/** Text holding a `{`, with a bracket before its first `{` or after its last `}` (a code fence taken off first). */
function bracketOutsideTheObject(text: string): boolean {
  const trimmed = text.trim();
  const fence = /^```[A-Za-z0-9_-]*[ \t]*\r?\n([\s\S]*?)\r?\n?```$/.exec(trimmed);
  const inner = fence ? fence[1]! : trimmed;
  const first = inner.indexOf('{');
  if (first < 0) return false;
  const last = inner.lastIndexOf('}');
  return /[[\]{}]/.test(inner.slice(0, first) + (last > first ? inner.slice(last + 1) : inner.slice(first + 1)));
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Every comma that, outside a string, has only white space before the next `}` or `]`, dropped. */
function withoutTrailingCommas(text: string): string {
  const keep: string[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      if (ch === '\\') {
        keep.push(ch, text[i + 1] ?? '');
        i++;
        continue;
      }
      if (ch === '"') inString = false;
    } else if (ch === '"') {
      inString = true;
    } else if (ch === ',' && /^\s*[}\]]/.test(text.slice(i + 1))) {
      continue;
    }
    keep.push(ch);
  }
  return keep.join('');
}
