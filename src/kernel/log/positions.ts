/**
 * Position checks for `EventLog.append`: an event may only refer to what exists.
 *
 * Kept as an incremental index so each check is O(1): the log never rescans itself.
 * The same index answers the loop's questions about the conversation (which turn is
 * open, which inbox messages are pending, which calls have results).
 */
import type { Intent } from './catalogue.ts';
import type { AnyEvent, LogEvent } from './envelope.ts';
import { outcomeProblem } from '../outcome.ts';
import { LogAppendError } from './errors.ts';

export interface PendingMessage {
  readonly id: string;
  readonly intent: Intent;
  readonly text: string;
  readonly source: string;
  /** Seq of its `inbox.received` event: inbox order. */
  readonly seq: number;
}

type CallState = {
  readonly assistantSeq: number;
  /** A start record was written and not taken back by a result saying the store refused it (`startRefused`). */
  started: boolean;
  result: number | undefined;
  readonly name: string;
  /** The earlier call whose id the model repeated (the first of the chain), when this call is a repeat. */
  readonly repeatOf: string | undefined;
  /** Seq of its first `tool.started`. */
  startedSeq: number | undefined;
  /** A repeat of this call started (this is the first call of a chain). */
  repeatStarted: boolean;
};

/** The index as plain data, for a snapshot of the log's derived state (see `PositionIndex.restore`). */
export interface PositionsState {
  /**
   * The calls as columns, one entry per call in the order they were made: [ids,
   * assistantSeqs, started, results (-1: none), names, repeatOfs (null: none),
   * startedSeqs (-1: none), repeatStarted]. Columns, not a row per call: a long
   * conversation has tens of thousands of calls, and a snapshot is parsed whole on
   * every reopen (eight arrays parse in half the time of one small array per call).
   */
  readonly calls: readonly [
    ids: readonly string[],
    assistantSeqs: readonly number[],
    started: readonly boolean[],
    results: readonly number[],
    names: readonly string[],
    repeatOfs: readonly (string | null)[],
    startedSeqs: readonly number[],
    repeatStarted: readonly boolean[],
  ];
  /** [id, intent, text, source, seq, taken] */
  readonly inbox: readonly (readonly [string, Intent, string, string, number, boolean])[];
  /** Ids of the pending messages, in inbox order. */
  readonly pending: readonly string[];
  readonly openTurn: number | null;
  readonly nextTurn: number;
  readonly activeReplacements: readonly number[];
  readonly generation: number;
  readonly lastPrompt: number | null;
  readonly lastTools: number | null;
  readonly toolExecutions: number;
}

export class PositionIndex {
  /** callId -> the assistant message that made the call, and its result. */
  readonly #calls = new Map<string, CallState>();
  /** inbox id -> state. */
  readonly #inbox = new Map<string, { message: PendingMessage; state: 'pending' | 'taken' }>();
  /** Pending inbox messages in arrival order (lazy deletion via #inbox state). */
  #pendingOrder: PendingMessage[] = [];
  #openTurn: number | undefined;
  #nextTurn = 0;
  #activeReplacements = new Set<number>();
  #generation = 0;
  #lastPrompt: number | undefined;
  #lastTools: number | undefined;
  #toolExecutions = 0;

  get openTurn(): number | undefined {
    return this.#openTurn;
  }
  get nextTurn(): number {
    return this.#nextTurn;
  }
  /** Increments on every replace or restore: the projection cache key. */
  get generation(): number {
    return this.#generation;
  }
  get lastPrompt(): number | undefined {
    return this.#lastPrompt;
  }
  get lastTools(): number | undefined {
    return this.#lastTools;
  }
  /** Tool calls the model has made in the conversation. */
  get callCount(): number {
    return this.#calls.size;
  }
  /** Seqs of the compactions currently in force. */
  activeReplacements(): number[] {
    return [...this.#activeReplacements].sort((a, b) => a - b);
  }
  /** Distinct tool calls executed in the conversation (first attempts). */
  get toolExecutions(): number {
    return this.#toolExecutions;
  }
  call(callId: string): Readonly<CallState> | undefined {
    return this.#calls.get(callId);
  }
  isReplacementActive(seq: number): boolean {
    return this.#activeReplacements.has(seq);
  }

  /** Is any inbox message pending? (`pending().length > 0`, without building the list.) */
  hasPending(): boolean {
    const order = this.#pendingOrder;
    for (let i = 0; i < order.length; i++) if (this.#inbox.get(order[i]!.id)?.state === 'pending') return true;
    return false;
  }

  /** Pending inbox messages in arrival order. */
  pending(): PendingMessage[] {
    const live = this.#pendingOrder.filter((m) => this.#inbox.get(m.id)?.state === 'pending');
    this.#pendingOrder = live;
    return live.slice();
  }

  /** An inbox message as it was received (its intent, text and source), pending or taken. */
  message(id: string): PendingMessage | undefined {
    return this.#inbox.get(id)?.message;
  }

  inboxState(id: string): 'pending' | 'taken' | undefined {
    return this.#inbox.get(id)?.state;
  }

  /** The index as plain data (JSON), to restore with `PositionIndex.restore`. */
  state(): PositionsState {
    const n = this.#calls.size;
    const calls: [string[], number[], boolean[], number[], string[], (string | null)[], number[], boolean[]] = [
      new Array<string>(n),
      new Array<number>(n),
      new Array<boolean>(n),
      new Array<number>(n),
      new Array<string>(n),
      new Array<string | null>(n),
      new Array<number>(n),
      new Array<boolean>(n),
    ];
    let i = 0;
    for (const [id, c] of this.#calls) {
      calls[0][i] = id;
      calls[1][i] = c.assistantSeq;
      calls[2][i] = c.started;
      calls[3][i] = c.result ?? -1;
      calls[4][i] = c.name;
      calls[5][i] = c.repeatOf ?? null;
      calls[6][i] = c.startedSeq ?? -1;
      calls[7][i] = c.repeatStarted;
      i++;
    }
    const inbox: [string, Intent, string, string, number, boolean][] = [];
    for (const [id, { message, state }] of this.#inbox) inbox.push([id, message.intent, message.text, message.source, message.seq, state === 'taken']);
    return {
      calls,
      inbox,
      pending: this.pending().map((m) => m.id),
      openTurn: this.#openTurn ?? null,
      nextTurn: this.#nextTurn,
      activeReplacements: this.activeReplacements(),
      generation: this.#generation,
      lastPrompt: this.#lastPrompt ?? null,
      lastTools: this.#lastTools ?? null,
      toolExecutions: this.#toolExecutions,
    };
  }

  /** The index `state()` described. Throws (a plain Error saying what) when `state` is not such a description. */
  static restore(state: PositionsState): PositionIndex {
    const bad = (what: string): Error => new Error(`the positions state is malformed: ${what}`);
    const seq = (v: unknown, none?: number | null): v is number => v === none || (Number.isSafeInteger(v) && (v as number) >= 0);
    if (typeof state !== 'object' || state === null) throw bad('not an object');
    const index = new PositionIndex();
    const columns = state.calls as unknown;
    if (!Array.isArray(columns) || columns.length !== 8 || !columns.every((c) => Array.isArray(c) && c.length === columns[0].length)) throw bad('calls');
    const [ids, assistantSeqs, starteds, results, names, repeatOfs, startedSeqs, repeatStarteds] = state.calls;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      const assistantSeq = assistantSeqs[i];
      const started = starteds[i];
      const result = results[i];
      const name = names[i];
      const repeatOf = repeatOfs[i];
      const startedSeq = startedSeqs[i];
      const repeatStarted = repeatStarteds[i];
      if (typeof id !== 'string' || !seq(assistantSeq) || typeof started !== 'boolean' || !seq(result, -1) || typeof name !== 'string')
        throw bad(`call ${String(id)}`);
      if ((repeatOf !== null && typeof repeatOf !== 'string') || !seq(startedSeq, -1) || typeof repeatStarted !== 'boolean') throw bad(`call ${id}`);
      if (index.#calls.has(id)) throw bad(`call ${id} twice`);
      index.#calls.set(id, {
        assistantSeq,
        started,
        result: result === -1 ? undefined : result,
        name,
        repeatOf: repeatOf ?? undefined,
        startedSeq: startedSeq === -1 ? undefined : startedSeq,
        repeatStarted,
      });
    }
    if (!Array.isArray(state.inbox)) throw bad('inbox');
    for (const row of state.inbox) {
      if (!Array.isArray(row) || row.length !== 6) throw bad('an inbox message');
      const [id, intent, text, source, at, taken] = row;
      if (typeof id !== 'string' || (intent !== 'follow_up' && intent !== 'steer' && intent !== 'inject') || typeof text !== 'string')
        throw bad(`message ${String(id)}`);
      if (typeof source !== 'string' || !seq(at) || typeof taken !== 'boolean' || index.#inbox.has(id)) throw bad(`message ${id}`);
      index.#inbox.set(id, { message: { id, intent, text, source, seq: at }, state: taken ? 'taken' : 'pending' });
    }
    if (!Array.isArray(state.pending)) throw bad('pending');
    for (const id of state.pending) {
      const entry = index.#inbox.get(id);
      if (entry?.state !== 'pending') throw bad(`pending message ${String(id)}`);
      index.#pendingOrder.push(entry.message);
    }
    if (index.#pendingOrder.length !== [...index.#inbox.values()].filter((e) => e.state === 'pending').length)
      throw bad('pending messages missing from the order');
    if (!seq(state.openTurn, null) || !seq(state.nextTurn) || !seq(state.generation) || !seq(state.toolExecutions)) throw bad('counters');
    if (!seq(state.lastPrompt, null) || !seq(state.lastTools, null)) throw bad('last prompt or tools');
    if (!Array.isArray(state.activeReplacements) || !state.activeReplacements.every((r) => seq(r))) throw bad('replacements');
    index.#openTurn = state.openTurn ?? undefined;
    index.#nextTurn = state.nextTurn;
    index.#generation = state.generation;
    index.#lastPrompt = state.lastPrompt ?? undefined;
    index.#lastTools = state.lastTools ?? undefined;
    index.#toolExecutions = state.toolExecutions;
    index.#activeReplacements = new Set(state.activeReplacements);
    return index;
  }

  /** Throws `LogAppendError` if `event` (not yet stored) refers to something that does not exist. `log.at` reads the events before it. */
  check(event: LogEvent, log: { at(seq: number): AnyEvent | undefined }): void {
    switch (event.type) {
      case 'inbox.received':
        if (this.#inbox.has(event.payload.id)) throw new LogAppendError(`${event.type}.payload.id`, `inbox message "${event.payload.id}" already received`);
        return;
      case 'user.message': {
        const state = this.#inbox.get(event.payload.id)?.state;
        if (state === undefined) throw new LogAppendError(`${event.type}.payload.id`, `no inbox message "${event.payload.id}" was received`);
        if (state === 'taken')
          throw new LogAppendError(`${event.type}.payload.id`, `inbox message "${event.payload.id}" is already taken (it would be delivered twice)`);
        this.#expectOpen(event.payload.turn, event.type);
        return;
      }
      case 'inbox.returned':
        for (let i = 0; i < event.payload.ids.length; i++) {
          const id = event.payload.ids[i]!;
          if (this.#inbox.get(id)?.state !== 'taken')
            throw new LogAppendError(`${event.type}.payload.ids[${i}]`, `inbox message "${id}" is not taken, so it cannot be returned`);
        }
        return;
      case 'turn.opened':
        if (this.#openTurn !== undefined) throw new LogAppendError(`${event.type}.payload.turn`, `turn ${this.#openTurn} is still open`);
        if (event.payload.turn !== this.#nextTurn)
          throw new LogAppendError(`${event.type}.payload.turn`, `expected turn ${this.#nextTurn}, got ${event.payload.turn}`);
        return;
      case 'turn.closed':
        if (this.#openTurn === undefined) throw new LogAppendError(`${event.type}.payload.turn`, `no turn is open (turn ${event.payload.turn} closed twice?)`);
        this.#expectOpen(event.payload.turn, event.type);
        {
          // `append` is public: a close outside the alphabet, stored, would leave the conversation unreadable from its store.
          const problem = outcomeProblem(event.payload.outcome);
          if (problem !== undefined) throw new LogAppendError(`${event.type}.payload.outcome`, problem);
        }
        return;
      case 'model.request': {
        const { upTo, prompt, tools } = event.payload;
        if (upTo > event.seq) throw new LogAppendError(`${event.type}.payload.upTo`, `seq ${upTo} is beyond the log (${event.seq})`);
        if (log.at(prompt)?.type !== 'prompt.assembled')
          throw new LogAppendError(`${event.type}.payload.prompt`, `seq ${prompt} is not a prompt.assembled event`);
        if (log.at(tools)?.type !== 'tools.declared') throw new LogAppendError(`${event.type}.payload.tools`, `seq ${tools} is not a tools.declared event`);
        this.#expectOpen(event.payload.turn, event.type);
        return;
      }
      case 'assistant.message':
        for (let i = 0; i < event.payload.content.length; i++) {
          const block = event.payload.content[i]!;
          if (block.type === 'tool_call' && this.#calls.has(block.id)) {
            throw new LogAppendError(`${event.type}.payload.content[${i}].id`, `tool call id "${block.id}" is already used in this conversation`);
          }
        }
        this.#expectOpen(event.payload.turn, event.type);
        return;
      case 'tool.started': {
        const call = this.#calls.get(event.payload.callId);
        if (!call) throw new LogAppendError(`${event.type}.payload.callId`, `no tool call "${event.payload.callId}" was made`);
        if (call.result !== undefined) throw new LogAppendError(`${event.type}.payload.callId`, `tool call "${event.payload.callId}" already has a result`);
        return;
      }
      case 'tool.result':
      case 'policy.decision': {
        const call = this.#calls.get(event.payload.callId);
        if (!call) throw new LogAppendError(`${event.type}.payload.callId`, `no tool call "${event.payload.callId}" was made`);
        if (event.type === 'tool.result' && call.result !== undefined) {
          throw new LogAppendError(`${event.type}.payload.callId`, `tool call "${event.payload.callId}" already has a result (seq ${call.result})`);
        }
        return;
      }
      case 'projection.replaced': {
        const { from, to } = event.payload;
        if (from > to) throw new LogAppendError(`${event.type}.payload.from`, `range [${from}, ${to}] is empty`);
        if (to >= event.seq) throw new LogAppendError(`${event.type}.payload.to`, `seq ${to} does not exist (log has ${event.seq} events)`);
        return;
      }
      case 'projection.restored': {
        const target = log.at(event.payload.replacement);
        if (target?.type !== 'projection.replaced')
          throw new LogAppendError(`${event.type}.payload.replacement`, `seq ${event.payload.replacement} is not a projection.replaced event`);
        if (!this.#activeReplacements.has(event.payload.replacement))
          throw new LogAppendError(`${event.type}.payload.replacement`, `replacement ${event.payload.replacement} was already restored`);
        return;
      }
      case 'prompt.assembled':
      case 'tools.declared':
      case 'model.delta':
      case 'model.result':
      case 'model.error_handled':
      case 'cancel.requested':
      case 'log.listener_failed':
        return;
    }
  }

  #expectOpen(turn: number, type: string): void {
    if (this.#openTurn !== turn) {
      throw new LogAppendError(
        `${type}.payload.turn`,
        this.#openTurn === undefined ? `turn ${turn} is not open` : `turn ${turn} is not the open turn (${this.#openTurn})`,
      );
    }
  }

  /** Updates the index with a stored event. */
  observe(event: AnyEvent): void {
    if (event.opaque) return;
    switch (event.type) {
      case 'inbox.received': {
        const message: PendingMessage = { ...event.payload, seq: event.seq };
        this.#inbox.set(event.payload.id, { message, state: 'pending' });
        this.#pendingOrder.push(message);
        return;
      }
      case 'user.message': {
        const entry = this.#inbox.get(event.payload.id);
        if (entry) entry.state = 'taken';
        return;
      }
      case 'inbox.returned': {
        for (const id of event.payload.ids) {
          const entry = this.#inbox.get(id);
          if (entry) entry.state = 'pending';
        }
        // Returned messages keep their original arrival order.
        const all = [...this.#pendingOrder, ...event.payload.ids.map((id) => this.#inbox.get(id)!.message)];
        const seen = new Set<string>();
        this.#pendingOrder = all.filter((m) => (seen.has(m.id) ? false : (seen.add(m.id), true))).sort((a, b) => a.seq - b.seq);
        return;
      }
      case 'turn.opened':
        this.#openTurn = event.payload.turn;
        this.#nextTurn = event.payload.turn + 1;
        return;
      case 'turn.closed':
        this.#openTurn = undefined;
        return;
      case 'assistant.message':
        for (let k = 0; k < event.payload.content.length; k++) {
          const block = event.payload.content[k]!;
          if (block.type === 'tool_call')
            this.#calls.set(block.id, {
              assistantSeq: event.seq,
              started: false,
              result: undefined,
              name: block.name,
              repeatOf: block.repeatOf,
              startedSeq: undefined,
              repeatStarted: false,
            });
        }
        return;
      case 'tool.started': {
        const call = this.#calls.get(event.payload.callId);
        if (call && !call.started) {
          call.started = true;
          call.startedSeq = event.seq;
          this.#toolExecutions++;
          const first = call.repeatOf === undefined ? undefined : this.#calls.get(call.repeatOf);
          if (first) first.repeatStarted = true;
        }
        return;
      }
      case 'tool.result': {
        const call = this.#calls.get(event.payload.callId);
        if (!call) return;
        call.result = event.seq;
        if (call.started && startRefused(event.payload)) this.#unstart(event.payload.callId, call);
        return;
      }
      case 'projection.replaced':
        this.#activeReplacements.add(event.seq);
        this.#generation++;
        return;
      case 'projection.restored':
        this.#activeReplacements.delete(event.payload.replacement);
        this.#generation++;
        return;
      case 'prompt.assembled':
        this.#lastPrompt = event.seq;
        return;
      case 'tools.declared':
        this.#lastTools = event.seq;
        return;
      default:
        return;
    }
  }

  /**
   * A start the store refused never ran: the call is not started, and the first call of its
   * chain counts a repeat as started only if another repeat's start stands.
   */
  #unstart(callId: string, call: CallState): void {
    call.started = false;
    if (call.repeatOf === undefined) return;
    const first = this.#calls.get(call.repeatOf);
    if (!first) return;
    first.repeatStarted = false;
    for (const [id, other] of this.#calls) if (id !== callId && other.repeatOf === call.repeatOf && other.started) first.repeatStarted = true;
  }
}

/**
 * Does this result say the call's start record was refused by the store (the
 * write-ahead of a STATEFUL or CRITICAL call), so that it never ran? The pipeline
 * answers such a call failed / NOT_RECORDED after 0 attempts; the loop, closing a
 * call it had to answer itself, failed / NOT_RUN after 0 attempts. The start record
 * stays in the log (and reaches the store with a later write); this result takes
 * it back: a later turn must not refuse a repeat of the call as already started.
 */
export function startRefused(result: {
  readonly status: string;
  readonly attempts: number;
  readonly error?: { readonly error_code: string } | undefined;
}): boolean {
  return result.status === 'failed' && result.attempts === 0 && (result.error?.error_code === 'NOT_RECORDED' || result.error?.error_code === 'NOT_RUN');
}
