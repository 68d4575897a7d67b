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
import type { AssistantBlock, AssistantMessage, Message, ToolResultBlock, UserBlock, UserMessage } from '../model/client.ts';
import type { AnyEvent, LogEvent } from '../log/envelope.ts';
import type { EventLog } from '../log/event-log.ts';
import { contributionOf } from './invariants/atomic-turns.ts';
import { checkToolPairingFrom, isNormalAssistantContent, normalizeAssistantContent, type PairingViolation } from './invariants/tool-pairing.ts';
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

/**
 * Messages as compact plain data, one flat array (a snapshot holds every message
 * of the history in force and is parsed whole on every reopen: its size and its
 * count of little arrays matter). Each message is a head `role + 2 × blocks`
 * (role 0: user, 1: assistant), then each block: a string (text), `0, callId,
 * status, content` (a tool result) or `0, id, name, args` (a tool call), or the
 * block itself when it carries more fields than those (a record written by a
 * newer version keeps them).
 */
export type MessageStream = readonly unknown[];

/** One message of a `MessageStream`, as its own array. */
type CompactMessage = readonly unknown[];

/**
 * The incremental projection as plain data, at the log's length `upTo`: for a
 * snapshot of the conversation's derived state (loop/snapshot.ts). The events of
 * a turn still open are named by seq (the log holds them).
 */
export interface ProjectionState {
  readonly upTo: number;
  /** The replace generation it was folded under. */
  readonly generation: number;
  readonly messages: MessageStream;
  /**
   * Where each call's result goes is where its call is in `messages` (the index of
   * its assistant message, its position among that message's calls): only the
   * calls for which that is not so are listed, [call id, message index (-1: none
   * kept), position] — a call whose message a failed turn took back.
   */
  readonly calls: readonly (readonly [string, number, number])[];
  readonly replacements: readonly Replacement[];
  readonly next: number;
  readonly skipTo: number;
  readonly turn: { readonly turn: number; readonly startLength: number; readonly startLast: MessageStream | null; readonly events: readonly number[] } | null;
}

const BLOCK_KEYS = { text: 2, tool_result: 4, tool_call: 4 } as const;

/**
 * The compact form of each message a snapshot has held: messages are frozen and
 * replaced, never changed, so the next snapshot reuses the form — a snapshot costs
 * what changed, not the history.
 */
const compacted = new WeakMap<Message, CompactMessage>();

function compactMessage(m: Message): CompactMessage {
  const known = compacted.get(m);
  if (known) return known;
  const out: unknown[] = [(m.role === 'user' ? 0 : 1) + 2 * m.content.length];
  for (const b of m.content) {
    if (Object.keys(b).length !== BLOCK_KEYS[b.type]) out.push(b);
    else if (b.type === 'text') out.push(b.text);
    else if (b.type === 'tool_result') out.push(0, b.callId, b.status, b.content);
    else out.push(0, b.id, b.name, b.args);
  }
  const compact = Object.freeze(out);
  if (Object.isFrozen(m)) compacted.set(m, compact);
  return compact;
}

const RESULT_STATUSES: ReadonlySet<unknown> = new Set(['ok', 'failed', 'unknown']);

/**
 * The messages a `MessageStream` holds, each checked, built and frozen as the
 * projection builds its own; `calls` (when given) gets the place of every tool
 * call, as folding those messages would set it.
 */
function restoredMessages(stream: unknown, where: string, bad: (what: string) => Error, calls?: Map<string, CallPosition>): Message[] {
  if (!Array.isArray(stream)) throw bad(where);
  const out: Message[] = [];
  const end = stream.length;
  let i = 0;
  while (i < end) {
    const index = out.length;
    const head = stream[i++] as unknown;
    if (typeof head !== 'number' || !Number.isSafeInteger(head) || head < 0) throw bad(`${where}: message ${index}`);
    const user = (head & 1) === 0;
    const content = new Array<UserBlock | AssistantBlock>(head >>> 1);
    let order = 0;
    for (let k = 0; k < content.length; k++) {
      if (i >= end) throw bad(`${where}: message ${index} ends early`);
      const b = stream[i++] as unknown;
      let block: UserBlock | AssistantBlock;
      if (typeof b === 'string') block = Object.freeze({ type: 'text', text: b });
      else if (b === 0) {
        if (i + 3 > end) throw bad(`${where}: message ${index} ends early`);
        const id = stream[i];
        const second = stream[i + 1];
        const third = stream[i + 2];
        i += 3;
        if (typeof id !== 'string' || typeof second !== 'string') throw bad(`${where}: message ${index} block ${k}`);
        if (user) {
          if (!RESULT_STATUSES.has(second) || typeof third !== 'string') throw bad(`${where}: message ${index} block ${k}`);
          block = Object.freeze({ type: 'tool_result', callId: id, status: second as ToolResultBlock['status'], content: third });
        } else block = Object.freeze({ type: 'tool_call', id, name: second, args: deepFreeze(third) });
      } else if (typeof b === 'object' && b !== null && !Array.isArray(b)) {
        const type = (b as { type?: unknown }).type;
        if (type !== 'text' && type !== (user ? 'tool_result' : 'tool_call')) throw bad(`${where}: message ${index} block ${k}`);
        block = deepFreeze(b) as UserBlock | AssistantBlock;
      } else throw bad(`${where}: message ${index} block ${k}`);
      if (calls && block.type === 'tool_call') {
        if (typeof block.id !== 'string') throw bad(`${where}: message ${index} block ${k}`);
        calls.set(block.id, { messageIndex: index, order: order++ });
      }
      content[k] = block;
    }
    out.push(Object.freeze({ role: user ? 'user' : 'assistant', content: Object.freeze(content) }) as Message);
  }
  return out;
}

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

  state(upTo: number, generation: number): ProjectionState {
    const turn = this.#turn;
    const messages = this.list.toArray();
    const compacts = new Array<CompactMessage>(messages.length);
    let values = 0;
    for (let i = 0; i < messages.length; i++) values += (compacts[i] = compactMessage(messages[i]!)).length;
    const stream = new Array<unknown>(values);
    let at = 0;
    for (const compact of compacts) for (let k = 0; k < compact.length; k++) stream[at++] = compact[k];
    // The calls the messages place as this folder has them need not be listed: restoring the messages places them.
    const calls: (readonly [string, number, number])[] = [];
    for (const [id, p] of this.#calls) if (!placesCall(messages[p.messageIndex], p.order, id)) calls.push([id, p.messageIndex, p.order]);
    // A call the messages place that this folder has no place for: restoring must not give it one.
    for (const m of messages) {
      if (m.role !== 'assistant') continue;
      for (const b of m.content) if (b.type === 'tool_call' && !this.#calls.has(b.id)) calls.push([b.id, -1, 0]);
    }
    return {
      upTo,
      generation,
      messages: stream,
      calls,
      replacements: this.#replacements,
      next: this.#next,
      skipTo: this.#skipTo,
      turn: turn
        ? {
            turn: turn.turn,
            startLength: turn.startLength,
            startLast: turn.startLast ? compactMessage(turn.startLast) : null,
            events: turn.events.map((e) => e.seq),
          }
        : null,
    };
  }

  /** The folder `state` described; the open turn's events read from `log`. Throws (saying what) when `state` does not describe one. */
  static restore(state: ProjectionState, log: Pick<EventLog, 'at'>): Folder {
    const bad = (what: string): Error => new Error(`the projection state is malformed: ${what}`);
    const int = (v: unknown, min = 0): v is number => Number.isSafeInteger(v) && (v as number) >= min;
    if (typeof state !== 'object' || state === null) throw bad('not an object');
    if (!Array.isArray(state.replacements)) throw bad('replacements');
    const replacements: Replacement[] = state.replacements.map((r, i) => {
      if (typeof r !== 'object' || r === null || !int(r.from) || !int(r.to) || !int(r.seq) || typeof r.summary !== 'string') throw bad(`replacement ${i}`);
      return { from: r.from, to: r.to, summary: r.summary, seq: r.seq };
    });
    const folder = new Folder(replacements);
    if (!Array.isArray(state.messages)) throw bad('messages');
    folder.list = MessageList.from(restoredMessages(state.messages, 'messages', bad, folder.#calls));
    if (!Array.isArray(state.calls)) throw bad('calls');
    for (const row of state.calls) {
      if (!Array.isArray(row) || row.length !== 3 || typeof row[0] !== 'string' || !int(row[1], -1) || !int(row[2])) throw bad('a call');
      if (row[1] === -1) folder.#calls.delete(row[0]);
      else folder.#calls.set(row[0], { messageIndex: row[1], order: row[2] });
    }
    if (!int(state.next) || state.next > replacements.length || !int(state.skipTo, -1)) throw bad('cursor');
    folder.#next = state.next;
    folder.#skipTo = state.skipTo;
    if (state.turn !== null) {
      const t = state.turn;
      if (typeof t !== 'object' || !int(t.turn) || !int(t.startLength) || t.startLength > folder.list.length || !Array.isArray(t.events))
        throw bad('open turn');
      const events = t.events.map((seq) => {
        const event = int(seq) ? log.at(seq) : undefined;
        if (!event || event.opaque || event.seq !== seq) throw bad(`open turn event ${String(seq)}`);
        return event;
      });
      folder.#turn = {
        turn: t.turn,
        startLength: t.startLength,
        startLast: t.startLast === null ? undefined : onlyMessage(restoredMessages(t.startLast, 'open turn start', bad), bad),
        events,
      };
    }
    folder.#changedFrom = 0;
    return folder;
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
        // The log's frozen content as it is when normalizing would give back the same blocks (a step's usual answer).
        const given = event.payload.content;
        const content: readonly AssistantBlock[] =
          isNormalAssistantContent(given) && Object.isFrozen(given) ? given : Object.freeze(normalizeAssistantContent(given));
        if (content.length === 0) return;
        const message: AssistantMessage = Object.freeze({ role: 'assistant', content });
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
    const blocks = [...existing.content]; // frozen: a spread stays on V8's fast path, `slice` leaves it
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

/** Is the call at position `order` among the calls of `message` the call `id`? */
function placesCall(message: Message | undefined, order: number, id: string): boolean {
  if (message?.role !== 'assistant') return false;
  let k = 0;
  for (const b of message.content) {
    if (b.type !== 'tool_call') continue;
    if (k === order) return b.id === id;
    k++;
  }
  return false;
}

function onlyMessage(messages: readonly Message[], bad: (what: string) => Error): Message {
  if (messages.length !== 1) throw bad(`open turn start: ${messages.length} messages`);
  return messages[0]!;
}

function deepFreeze(value: unknown): unknown {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}

/** Folders restored from snapshots, waiting for the log's ProjectionCache (taken once). */
const seeds = new WeakMap<EventLog, { readonly folder: Folder; readonly upTo: number; readonly generation: number }>();

/**
 * Seeds the projection of a log resumed from a snapshot: the first ProjectionCache
 * built over `log` starts from `state` instead of folding from seq 0. Throws
 * (saying what) when `state` is malformed; nothing is seeded then.
 */
export function seedProjection(log: EventLog, state: ProjectionState): void {
  if (!Number.isSafeInteger(state?.upTo) || state.upTo < 0 || state.upTo > log.length || !Number.isSafeInteger(state.generation)) {
    throw new Error('the projection state is malformed: upTo or generation');
  }
  seeds.set(log, { folder: Folder.restore(state, log), upTo: state.upTo, generation: state.generation });
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
    const seed = seeds.get(log);
    seeds.delete(log);
    if (seed && seed.generation === this.#generation) {
      // Resumed from a snapshot: the fold goes on from there (a compaction since then folds from 0).
      this.#folder = seed.folder;
      this.#cursor = seed.upTo;
    } else {
      this.#folder = new Folder(replacementsIn(log.events));
    }
  }

  /** The projection as plain data at the log's current length (for a snapshot). */
  state(): ProjectionState {
    this.currentList();
    return this.#folder.state(this.#cursor, this.#generation);
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
      const length = log.length;
      for (let i = this.#cursor; i < length; i++) this.#folder.apply(log.at(i)!);
      this.#cursor = length;
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
