/**
 * What a follower saw streamed is what the model said: the text deltas a model
 * call stored, joined, are the text of the assistant message that call produced,
 * its tool calls started in the message's order with the message's names, after
 * the text the message holds before each of them and no more, and each call's
 * argument deltas, joined, read as the arguments stored.
 * A UI draws a turn from `model.delta` while it runs and shows the stored
 * message afterwards; a loop that drops, doubles or reorders a delta — or
 * redacts the stream differently from the message — shows the user another
 * answer than the one the conversation keeps, and every other rule still holds
 * (outside probe 50, LOW-3: no rule joined the deltas). Text held back by the
 * stream's redaction and let out only after a call started joined the same, and
 * only a dedicated contract case saw it (outside probe 67): the text before each
 * call's start is judged too.
 *
 * Judged for each assistant message against the deltas of the model call whose
 * result it is (the last result of its step before it); a call that streamed
 * nothing (a client without deltas) is not judged. Arguments the message keeps
 * as text are compared as text; those it keeps as data, as data where the joined
 * text reads as a JSON object (as it is, unfenced or without trailing commas —
 * the repairs an adapter makes); no argument text is compared with data it
 * cannot be read as, nor arguments nested deeper than the log keeps.
 */
import { MAX_ARGUMENT_DEPTH, nestedDeeperThan, wellFormedData, type LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { sameData } from './support/same-data.ts';
import { viewOf } from './support/log-view.ts';
import { referenceRead } from './arguments-read-as-sent.ts';

export const deltasSpellTheMessage = defineInvariant({
  id: 'deltas-spell-the-message',
  title: 'the deltas a model call stored join to the assistant message it produced: its text, its calls in order, their arguments',
  appliesTo: loopgateOnly('a peer stores no deltas of loopgate’s'),
  check: (run: ScenarioRun) => spelled(viewOf(run).known),
});

const WRAPPERS = new Set(['multi_tool_use.parallel', 'parallel']);

interface Streamed {
  text: string;
  /** Each call's start, with how much text had streamed before it. */
  readonly starts: { readonly index: number; readonly id: string; readonly name: string; readonly textBefore: number }[];
  readonly args: Map<number, string>;
}

/** The first assistant message its call's deltas do not spell, said in a sentence; nothing when all do. */
export function spelled(events: readonly LogEvent[]): string | undefined {
  const streams = new Map<string, Streamed>();
  const lastAttempt = new Map<string, number>();
  for (const e of events) {
    if (e.type === 'model.delta') {
      const { turn, step, attempt } = e.payload;
      const key = `${turn}/${step}/${attempt}`;
      let s = streams.get(key);
      if (!s) streams.set(key, (s = { text: '', starts: [], args: new Map() }));
      const d = e.payload.delta as { kind?: unknown; text?: unknown; json?: unknown; index?: unknown; id?: unknown; name?: unknown };
      if (d.kind === 'text' && typeof d.text === 'string') s.text += d.text;
      else if (d.kind === 'tool_call_start' && typeof d.index === 'number')
        s.starts.push({ index: d.index, id: String(d.id ?? ''), name: String(d.name ?? ''), textBefore: s.text.length });
      else if (d.kind === 'tool_args' && typeof d.index === 'number' && typeof d.json === 'string') s.args.set(d.index, (s.args.get(d.index) ?? '') + d.json);
    } else if (e.type === 'model.result') {
      lastAttempt.set(`${e.payload.turn}/${e.payload.step}`, e.payload.attempt);
    } else if (e.type === 'assistant.message') {
      const { turn, step, content } = e.payload;
      const attempt = lastAttempt.get(`${turn}/${step}`);
      const s = attempt === undefined ? undefined : streams.get(`${turn}/${step}/${attempt}`);
      if (!s) continue;
      const where = `turn ${turn}, step ${step} (model call attempt ${attempt}, event seq ${e.seq})`;
      const text = content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      // The loop keeps the model's text well-formed (half a surrogate pair made U+FFFD): so are the deltas, joined.
      if (s.text.toWellFormed() !== text) return `${where}: the stored deltas join to ${quote(s.text)}, but the assistant message says ${quote(text)}`;
      const calls = content.filter((b) => b.type === 'tool_call');
      // OpenAI's undeclared parallel wrapper streams as one call the adapter unwraps into several (adapter-follows-the-wire judges that).
      if (s.starts.some((c) => WRAPPERS.has(c.name))) continue;
      if (s.starts.length !== calls.length)
        return `${where}: the deltas start ${s.starts.length} tool call(s), but the assistant message holds ${calls.length}`;
      for (let i = 0; i < calls.length; i++) {
        const call = calls[i]!;
        const start = s.starts[i]!;
        // Ids are not compared: the loop renames a call whose id is missing or taken (the message keeps its own).
        if (start.name !== call.name) return `${where}: tool call ${i + 1} started as ${start.name} in the deltas, but the message holds ${call.name}`;
        // The text the message holds before the call streamed before the call started (a follower draws it there).
        const before = textBefore(content, call);
        const streamedBefore = s.text.slice(0, start.textBefore).toWellFormed();
        if (streamedBefore !== before)
          return `${where}: before tool call ${i + 1} (${call.name}) started, the deltas had streamed ${quote(streamedBefore)}, but the message holds ${quote(before)} before it (the deltas stream in the order of the message's blocks)`;
        const joined = s.args.get(start.index) ?? '';
        if (typeof call.args === 'string') {
          if (joined.toWellFormed() !== call.args)
            return `${where}: tool call ${i + 1} (${call.name}) streamed arguments ${quote(joined)}, but the message holds ${quote(call.args)}`;
          continue;
        }
        // Read as the gate's naive reference reads argument text (arguments-read-as-sent): adapters repair a trailing
        // comma or a code fence. Text no reading takes is the adapter's to repair, and judged there.
        const read = joined.trim() === '' ? {} : wellFormedData(referenceRead(joined));
        if (read === undefined) continue;
        // Arguments nested deeper than the loop keeps are stored cut (arguments-validated judges that).
        if (nestedDeeperThan(read, MAX_ARGUMENT_DEPTH)) continue;
        if (!sameData(read, call.args))
          return `${where}: tool call ${i + 1} (${call.name}) streamed arguments ${quote(joined)}, but the message holds ${quote(JSON.stringify(call.args))}`;
      }
    }
  }
  return undefined;
}

/** The text of the blocks before `call` in the message. */
function textBefore(content: readonly { readonly type: string; readonly text?: string }[], call: object): string {
  let text = '';
  for (const b of content) {
    if (b === call) break;
    if (b.type === 'text') text += b.text ?? '';
  }
  return text;
}

function quote(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 119)}…` : text);
}
