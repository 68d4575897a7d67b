/**
 * History is a projection of the log (seed 000 §3). Three event types become
 * messages — `user.message`, `assistant.message`, `tool.result` — plus the
 * summaries of compactions (`projection.replaced`). Deltas and everything else are
 * logged and never projected.
 *
 * `project(events)` is the pure definition. `ProjectionCache` computes the same
 * thing incrementally: each step folds only the events appended since the last
 * step, and a compaction (which changes earlier content without changing the
 * length) bumps the replace generation and forces one rebuild.
 */
import type { AssistantMessage, Message, ToolResultBlock, UserBlock, UserMessage } from '../model/client.ts';
import type { AnyEvent, LogEvent } from '../log/envelope.ts';
import type { EventLog } from '../log/event-log.ts';
import { contributionOf } from './invariants/atomic-turns.ts';
import { checkToolPairingFrom, normalizeAssistantContent, type PairingViolation } from './invariants/tool-pairing.ts';
import { MessageList } from './message-list.ts';

interface Replacement {
  readonly from: number;
  readonly to: number;
  readonly summary: string;
  /** Seq of the compaction: of two covering the same range, the newer wins. */
  readonly seq: number;
}

interface OpenTurn {
  readonly turn: number;
  readonly startLength: number;
  readonly startLast: Message | undefined;
  readonly events: LogEvent[];
}

interface CallPosition {
  /** Index of the assistant message that made the call. */
  readonly messageIndex: number;
  /** Position among that message's calls. */
  readonly order: number;
}

export const SUMMARY_PREFIX = '[Summary of the earlier conversation]\n';

/** Folds events into messages. One instance per (log, replace generation). */
class Folder {
  /** The messages so far: a persistent list, so a snapshot costs nothing and a change what it changes. */
  list: MessageList = MessageList.EMPTY;
  touched = 0;
  /** Lowest message index written or removed since `takeChangedFrom` was last called. */
  #changedFrom = 0;
  #turn: OpenTurn | undefined;
  readonly #calls = new Map<string, CallPosition>();
  readonly #replacements: Replacement[];
  #next = 0; // index into #replacements of the next one to reach
  #skipTo = -1; // skip events with seq <= this

  constructor(replacements: Replacement[]) {
    this.#replacements = replacements;
  }

  apply(event: AnyEvent): void {
    this.touched++;
    if (event.seq <= this.#skipTo) return;
    while (this.#next < this.#replacements.length && this.#replacements[this.#next]!.to < event.seq) this.#next++;
    const r = this.#replacements[this.#next];
    if (r && r.from <= event.seq) {
      this.#appendUserBlock({ type: 'text', text: SUMMARY_PREFIX + r.summary });
      this.#skipTo = r.to;
      return;
    }
    if (event.opaque) return;
    this.#applyKnown(event);
  }

  #applyKnown(event: LogEvent): void {
    switch (event.type) {
      case 'turn.opened':
        this.#turn = {
          turn: event.payload.turn,
          startLength: this.list.length,
          startLast: this.list.at(this.list.length - 1),
          events: [],
        };
        return;
      case 'user.message':
      case 'assistant.message':
      case 'tool.result':
        this.#turn?.events.push(event);
        this.#project(event);
        return;
      case 'turn.closed':
        if (this.#turn && this.#turn.turn === event.payload.turn) this.#close(this.#turn, event);
        this.#turn = undefined;
        return;
      default:
        return;
    }
  }

  #project(event: LogEvent): void {
    switch (event.type) {
      case 'user.message':
        if (!event.payload.dropped && event.payload.text.length > 0) {
          this.#appendUserBlock({ type: 'text', text: event.payload.text });
        }
        return;
      case 'assistant.message': {
        const content = normalizeAssistantContent(event.payload.content);
        if (content.length === 0) return;
        const message: AssistantMessage = Object.freeze({ role: 'assistant', content: Object.freeze(content) });
        const index = this.list.length;
        this.#changed(index);
        this.list = this.list.push(message);
        let order = 0;
        for (let k = 0; k < content.length; k++) {
          const block = content[k]!;
          if (block.type === 'tool_call') this.#calls.set(block.id, { messageIndex: index, order: order++ });
        }
        return;
      }
      case 'tool.result':
        this.#insertResult(event.payload.callId, {
          type: 'tool_result',
          callId: event.payload.callId,
          status: event.payload.status,
          content: event.payload.content,
        });
        return;
      default:
        return;
    }
  }

  #close(turn: OpenTurn, closed: Extract<LogEvent, { type: 'turn.closed' }>): void {
    const contribution = contributionOf(closed.payload.outcome, turn.events);
    if (contribution.keep === 'all') return;
    this.#changed(turn.startLast ? turn.startLength - 1 : turn.startLength);
    this.list = this.list.truncate(turn.startLength);
    if (turn.startLast) this.list = this.list.set(turn.startLength - 1, turn.startLast);
    if (contribution.keep === 'nothing') return;
    for (const event of contribution.events) this.#project(event);
    this.#appendUserBlock({ type: 'text', text: contribution.notice });
  }

  /** Adds a block to the trailing user message, or starts one. */
  #appendUserBlock(block: UserBlock): void {
    const lastIndex = this.list.length - 1;
    const last = this.list.at(lastIndex);
    if (last?.role === 'user') {
      this.#changed(lastIndex);
      this.list = this.list.set(lastIndex, userMessage([...last.content, block]));
    } else {
      this.#changed(this.list.length);
      this.list = this.list.push(userMessage([block]));
    }
  }

  /** Puts a result in the user message right after its call, in call order, before any text. */
  #insertResult(callId: string, block: ToolResultBlock): void {
    const position = this.#calls.get(callId);
    if (!position) return; // the log refuses results without calls; a hand-made log is caught by checkToolPairing
    const at = position.messageIndex + 1;
    const existing = this.list.at(at);
    if (existing === undefined) {
      this.#changed(this.list.length);
      this.list = this.list.push(userMessage([block]));
      return;
    }
    if (existing.role !== 'user') return;
    const blocks = existing.content.slice();
    let insertAt = 0;
    while (insertAt < blocks.length) {
      const b = blocks[insertAt]!;
      if (b.type !== 'tool_result') break;
      if ((this.#calls.get(b.callId)?.order ?? -1) > position.order) break;
      insertAt++;
    }
    blocks.splice(insertAt, 0, block);
    this.#changed(at);
    this.list = this.list.set(at, userMessage(blocks));
  }

  #changed(index: number): void {
    if (index < this.#changedFrom) this.#changedFrom = index;
  }

  /** The lowest message index changed since the last call (the count if none), and resets it. */
  takeChangedFrom(): number {
    const from = Math.min(this.#changedFrom, this.list.length);
    this.#changedFrom = this.list.length;
    return from;
  }
}

function userMessage(content: UserBlock[]): UserMessage {
  return Object.freeze({ role: 'user', content: Object.freeze(content) });
}

/** The compactions in force at the end of `events`, outermost only, by start. */
function replacementsIn(events: readonly AnyEvent[]): Replacement[] {
  const active = new Map<number, Replacement>();
  for (const event of events) {
    if (event.type === 'projection.replaced' && !event.opaque) {
      const p = (event as Extract<LogEvent, { type: 'projection.replaced' }>).payload;
      active.set(event.seq, { from: p.from, to: p.to, summary: p.summary, seq: event.seq });
    } else if (event.type === 'projection.restored' && !event.opaque) {
      active.delete((event as Extract<LogEvent, { type: 'projection.restored' }>).payload.replacement);
    }
  }
  // Outermost first; among compactions of the same range, the newest (a re-summary) first.
  const sorted = [...active.values()].sort((a, b) => a.from - b.from || b.to - a.to || b.seq - a.seq);
  const outer: Replacement[] = [];
  for (const r of sorted) {
    const last = outer[outer.length - 1];
    if (last && r.to <= last.to) continue; // contained in an outer compaction
    outer.push(r);
  }
  return outer;
}

/** The projection of a sequence of events (a whole log or a prefix of one). */
export function project(events: readonly AnyEvent[]): readonly Message[] {
  const folder = new Folder(replacementsIn(events));
  for (const event of events) folder.apply(event);
  return folder.list.toArray();
}

/**
 * The incremental projection of a live log. `currentList()` costs the events
 * appended since the previous call, except after a compaction (one rebuild);
 * `current()` also makes the messages an array, once per change.
 */
export class ProjectionCache {
  readonly #log: EventLog;
  #folder: Folder;
  #cursor = 0;
  #generation: number;
  /** Events folded so far, across rebuilds: the cost measure (events touched). */
  #touchedBefore = 0;
  /** Leading messages that passed the pairing check and have not changed since. */
  #pairedUpTo = 0;
  #pairingLooks = 0;

  constructor(log: EventLog) {
    this.#log = log;
    this.#generation = log.positions.generation;
    this.#folder = new Folder(replacementsIn(log.events));
  }

  get eventsTouched(): number {
    return this.#touchedBefore + this.#folder.touched;
  }

  /** Messages the pairing check has looked at so far: its cost measure. */
  get pairingLooks(): number {
    return this.#pairingLooks;
  }

  /** The messages as an array (frozen; the same array until the projection changes). */
  current(): readonly Message[] {
    return this.currentList().toArray();
  }

  /** The messages as a persistent list: what a step needs, at the cost of what changed. */
  currentList(): MessageList {
    const log = this.#log;
    if (log.positions.generation !== this.#generation) {
      this.#touchedBefore += this.#folder.touched;
      this.#generation = log.positions.generation;
      this.#folder = new Folder(replacementsIn(log.events));
      this.#cursor = 0;
      this.#pairedUpTo = 0;
    }
    if (this.#cursor < log.length) {
      const events = log.events;
      for (let i = this.#cursor; i < events.length; i++) this.#folder.apply(events[i]!);
      this.#cursor = events.length;
    }
    return this.#folder.list;
  }

  /**
   * `checkToolPairing(current())`, incrementally: only messages from the first one
   * changed since the last check are looked at again, so a step costs what changed,
   * not the length of the history.
   */
  pairingViolation(): PairingViolation | undefined {
    const messages = this.currentList();
    const from = Math.min(this.#pairedUpTo, this.#folder.takeChangedFrom());
    this.#pairingLooks += messages.length - from;
    const { violation, checkedUpTo } = checkToolPairingFrom(messages, from);
    this.#pairedUpTo = checkedUpTo;
    return violation;
  }
}
