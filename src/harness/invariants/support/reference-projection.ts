/**
 * The history a log projects to, computed by the plainest code that can do it —
 * a reference for `projection-equals-replay`, written without the kernel's
 * projection (no Folder, no cache, no contributionOf), so a bug in those shows as
 * a difference instead of being shared by both sides of the comparison.
 *
 * Deliberately naive, in three passes over the events:
 *
 * 1. which compactions are in force (replaced, not restored), and for each event
 *    the outermost one covering it (the newest of equal ranges);
 * 2. what each closed turn keeps: everything when it replied; when cancelled or
 *    interrupted, its events up to its last assistant message plus the tool
 *    results after it, and a notice (nothing if the model never answered); for any
 *    other outcome, nothing — a turn still open keeps everything so far;
 * 3. the kept items rendered into messages in log order: user text joins the
 *    trailing user message, an assistant message (text first, then its calls) is
 *    a message of its own, and a tool result goes into the user message right
 *    after its call, among the results in call order, before any text.
 */
import { SUMMARY_PREFIX, type AnyEvent, type LogEvent, type Message } from '../../../kernel/index.ts';

type Item =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'assistant'; readonly event: Extract<LogEvent, { type: 'assistant.message' }> }
  | { readonly kind: 'result'; readonly event: Extract<LogEvent, { type: 'tool.result' }> };

interface Compaction {
  readonly seq: number;
  readonly from: number;
  readonly to: number;
  readonly summary: string;
}

/** The history `events` project to, by the reference's plain rules. */
export function referenceProjection(events: readonly AnyEvent[]): Message[] {
  return render(keptItems(events, compactionsInForce(events)));
}

function compactionsInForce(events: readonly AnyEvent[]): Compaction[] {
  const inForce = new Map<number, Compaction>();
  for (const e of events) {
    if (e.opaque) continue;
    const event = e as LogEvent;
    if (event.type === 'projection.replaced') inForce.set(event.seq, { seq: event.seq, ...event.payload });
    if (event.type === 'projection.restored') inForce.delete(event.payload.replacement);
  }
  return [...inForce.values()];
}

/** The compaction an event is hidden by: of those covering it, the one starting first, then reaching furthest, then the newest. */
function coveringCompaction(seq: number, compactions: readonly Compaction[]): Compaction | undefined {
  let best: Compaction | undefined;
  for (const c of compactions) {
    if (seq < c.from || seq > c.to) continue;
    if (!best || c.from < best.from || (c.from === best.from && (c.to > best.to || (c.to === best.to && c.seq > best.seq)))) best = c;
  }
  return best;
}

function keptItems(events: readonly AnyEvent[], compactions: readonly Compaction[]): Item[] {
  const items: Item[] = [];
  const summarised = new Set<number>();
  let turn: { number: number; items: Item[]; assistants: number } | undefined;
  for (const e of events) {
    const compaction = coveringCompaction(e.seq, compactions);
    if (compaction) {
      if (!summarised.has(compaction.seq)) {
        summarised.add(compaction.seq);
        items.push({ kind: 'text', text: SUMMARY_PREFIX + compaction.summary });
      }
      continue;
    }
    if (e.opaque) continue;
    const event = e as LogEvent;
    const into = turn ? turn.items : items;
    switch (event.type) {
      case 'turn.opened':
        turn = { number: event.payload.turn, items: [], assistants: 0 };
        break;
      case 'user.message':
        if (!event.payload.dropped && event.payload.text !== '') into.push({ kind: 'text', text: event.payload.text });
        break;
      case 'assistant.message':
        into.push({ kind: 'assistant', event });
        break;
      case 'tool.result':
        into.push({ kind: 'result', event });
        break;
      case 'turn.closed':
        if (turn && turn.number === event.payload.turn) items.push(...whatTheTurnKeeps(turn.items, event.payload.outcome));
        turn = undefined;
        break;
      default:
        break;
    }
  }
  if (turn) items.push(...turn.items); // a turn still open: everything so far
  return items;
}

function whatTheTurnKeeps(items: readonly Item[], outcome: { readonly kind: string; readonly by?: string }): Item[] {
  if (outcome.kind === 'replied') return [...items];
  if (outcome.kind !== 'cancelled' && outcome.kind !== 'interrupted') return [];
  let lastAssistant = -1;
  items.forEach((item, i) => {
    if (item.kind === 'assistant') lastAssistant = i;
  });
  if (lastAssistant === -1) return [];
  const kept = items.filter((item, i) => i <= lastAssistant || item.kind !== 'text');
  return [
    ...kept,
    {
      kind: 'text',
      text: `[This turn was ${how(outcome)} before it finished. Tool results marked unknown may or may not have taken effect; check before repeating them.]`,
    },
  ];
}

function how(outcome: { readonly kind: string; readonly by?: string; readonly cause?: string }): string {
  if (outcome.kind === 'interrupted') return `interrupted because ${outcome.cause === 'store' ? 'the store refused a write' : 'the process stopped'}`;
  if (outcome.by === 'user') return 'cancelled by the user';
  if (outcome.by === 'parent') return 'cancelled by its parent task';
  return 'stopped because the service was shutting down';
}

type Block = Record<string, unknown>;

function render(items: readonly Item[]): Message[] {
  const messages: { role: 'user' | 'assistant'; content: Block[] }[] = [];
  /** Where each call was made: its message, and its place among that message's calls. */
  const calls = new Map<string, { message: number; order: number }>();
  for (const item of items) {
    if (item.kind === 'text') {
      const last = messages[messages.length - 1];
      if (last && last.role === 'user') last.content.push({ type: 'text', text: item.text });
      else messages.push({ role: 'user', content: [{ type: 'text', text: item.text }] });
    } else if (item.kind === 'assistant') {
      const texts: Block[] = [];
      const made: Block[] = [];
      for (const block of item.event.payload.content) {
        if (block.type === 'text') {
          if (block.text.trim() !== '') texts.push({ type: 'text', text: block.text }); // whitespace alone is never sent back
        } else made.push({ type: 'tool_call', id: block.id, name: block.name, args: block.args });
      }
      if (texts.length + made.length === 0) continue;
      made.forEach((call, order) => calls.set(call['id'] as string, { message: messages.length, order }));
      messages.push({ role: 'assistant', content: [...texts, ...made] });
    } else {
      const { callId, status, content } = item.event.payload;
      const call = calls.get(callId);
      if (!call) continue;
      const result: Block = { type: 'tool_result', callId, status, content };
      const next = messages[call.message + 1];
      if (!next) {
        messages.push({ role: 'user', content: [result] });
        continue;
      }
      if (next.role !== 'user') continue;
      let at = 0;
      while (at < next.content.length) {
        const b = next.content[at]!;
        if (b['type'] !== 'tool_result' || (calls.get(b['callId'] as string)?.order ?? -1) > call.order) break;
        at++;
      }
      next.content.splice(at, 0, result);
    }
  }
  return messages as unknown as Message[];
}
