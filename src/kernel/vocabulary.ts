/**
 * The words the loop itself writes into its records: every event type, field
 * name, enum value and literal of the event catalogue, the span kinds and
 * statuses, the error codes the pipeline and the loop put in tool results, and
 * the block types and roles of the messages a model is sent (the requests the
 * loop records, and the reports that show them, hold them in every message).
 *
 * Every string of every record passes the redactor, so a secret that occurs in
 * one of these words would garble every record that holds it (a tool result
 * whose `status` key is "[REDACTED]"): agent-settings.ts refuses such a secret.
 * Derived from the catalogue's schemas, so a new event or field is covered
 * without a list to keep.
 */
import type { z } from 'zod';
import { EVENT_SCHEMAS } from './log/catalogue.ts';
import type { AssistantBlock, Message, UserBlock } from './model/client.ts';
import { ERROR_CODES } from './tools/tool-errors.ts';
import type { SpanKind, SpanStatus } from './trace/tracer.ts';

const SPAN_KINDS: Record<SpanKind, true> = {
  turn: true,
  model_call: true,
  tool: true,
  policy: true,
  compaction: true,
  checkpoint: true,
  backoff: true,
  prompt: true,
};
const SPAN_STATUSES: Record<SpanStatus, true> = { ok: true, error: true, cancelled: true, undetermined: true };
/** The messages' block types and roles (a tool's result goes back as a `tool_result` block, in no log record). */
const MESSAGE_WORDS: Record<AssistantBlock['type'] | UserBlock['type'] | Message['role'], true> = {
  text: true,
  tool_call: true,
  tool_result: true,
  user: true,
  assistant: true,
};
/** The codes the loop writes for calls it settles itself (tool-journal.ts). */
const LOOP_ERROR_CODES = ['NOT_RUN', 'PIPELINE_ERROR'];

let words: readonly string[] | undefined;

/** The loop's own words, longest first (built once). */
export function loopVocabulary(): readonly string[] {
  if (words) return words;
  const out = new Set<string>([...Object.keys(SPAN_KINDS), ...Object.keys(SPAN_STATUSES), ...Object.keys(MESSAGE_WORDS), ...ERROR_CODES, ...LOOP_ERROR_CODES]);
  const seen = new Set<unknown>();
  for (const [type, schema] of Object.entries(EVENT_SCHEMAS)) {
    out.add(type);
    collect(schema, out, seen);
  }
  words = Object.freeze([...out].sort((a, b) => b.length - a.length));
  return words;
}

interface Def {
  readonly type: string;
  readonly shape?: Record<string, z.ZodType>;
  readonly catchall?: z.ZodType;
  readonly entries?: Record<string, unknown>;
  readonly values?: readonly unknown[];
  readonly options?: readonly z.ZodType[];
  readonly element?: z.ZodType;
  readonly innerType?: z.ZodType;
  readonly keyType?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly in?: z.ZodType;
  readonly out?: z.ZodType;
  readonly items?: readonly z.ZodType[];
  readonly rest?: z.ZodType;
  readonly getter?: () => z.ZodType;
}

/** Keys, enum values and literals of a schema and everything inside it. */
function collect(schema: z.ZodType | undefined, out: Set<string>, seen: Set<unknown>): void {
  if (schema === undefined || seen.has(schema)) return;
  seen.add(schema);
  const def = (schema as unknown as { _zod: { def: Def } })._zod.def;
  const inner = [def.catchall, def.element, def.innerType, def.keyType, def.valueType, def.in, def.out, def.rest, ...(def.options ?? []), ...(def.items ?? [])];
  for (const [key, value] of Object.entries(def.shape ?? {})) {
    out.add(key);
    inner.push(value);
  }
  if (def.type === 'enum') for (const value of Object.values(def.entries ?? {})) out.add(String(value));
  if (def.type === 'literal') for (const value of def.values ?? []) out.add(String(value));
  if (def.type === 'lazy' && def.getter) inner.push(def.getter());
  for (const s of inner) collect(s, out, seen);
}
