/**
 * What the world records of a case, over every life of its log.
 *
 * A life is one log of the conversation in one process: the loop's, or each log a
 * production host opens from the store — again after a crash and a reopen, or
 * after the host dropped a log the store refused to write. Each new life starts
 * from what the store holds; what an earlier life did beyond that is lost with
 * it (the process died, or its writes failed).
 *
 * Everything is recorded with its life and its place in that life's log: each
 * model request (the seq of its `model.request`), each turn result (the seq of its
 * `turn.closed`), each trace, and for every appended event how many events the
 * store held then (`durableBefore`). At the end, `finish` keeps what the final
 * log still holds — a request or turn of an earlier life counts when its record
 * reached the store before that life ended — and sets the rest aside as lost.
 * Invariants then judge one consistent story: the final log, the requests and
 * turns recorded in it, and the store.
 *
 * With several live hosts over one store, a host that kept its session takes it
 * up again when the store holds nothing newer (another host's write was
 * refused, say): that log is the conversation's again, so its next event starts a
 * life of its own over the same log (`takenUpAgain`). A dead process's log may
 * also grow in memory, but a crash ends its lives for good.
 */
import { EventLog, isKnown, type AgentLoop, type AnyEvent, type LogEvent, type Message, type TraceRecord, type TurnResult } from '../../kernel/index.ts';
import type { ProviderCall, RequestOrigin, SentRequest } from './recording-model.ts';

interface Life {
  readonly log: EventLog;
  /** Events the store held when this life's log was opened. */
  readonly opened: number;
  /** `durableBefore` of each event this life appended, from seq `opened` on. */
  readonly durableBefore: number[];
  loop: AgentLoop | undefined;
  /** Events the store held when this life ended (the next one opened); undefined while it lasts. */
  ended: number | undefined;
  /** Its process crashed: what its log still appends in memory happens nowhere (no trigger fires on it). */
  dead?: true;
}

interface Placed<T> {
  readonly life: number;
  readonly seq: number;
  readonly value: T;
}

/** The case as the final log tells it. */
export interface RecordedCase {
  readonly log: EventLog;
  readonly loop: AgentLoop | undefined;
  readonly durableBefore: readonly number[];
  readonly requests: readonly SentRequest[];
  readonly responses: readonly ProviderCall[];
  readonly results: readonly TurnResult[];
  readonly traces: readonly TraceRecord[];
  /** What earlier lives did that the final log does not hold. */
  readonly lost: LostWork;
  /** Logs the case opened: 1 without a crash or a dropped log. */
  readonly lives: number;
  /** Where each life began in the conversation's log (the events the store held then), in order: recovery writes first in a life. */
  readonly opens: readonly number[];
  /** After a crash, why no process could read the conversation back from the store. */
  readonly unreadable?: string;
}

export interface LostWork {
  readonly requests: number;
  readonly turns: readonly TurnResult[];
}

export class CaseRecording {
  readonly #lives: Life[] = [];
  readonly #results: Placed<TurnResult>[] = [];
  readonly #traces: Placed<TraceRecord>[] = [];
  readonly #store: () => number;
  readonly #onEvent: (seq: number, event: AnyEvent) => void;
  /** After a crash, the store could not be read back: the dead life is the last, ending at what the store held. */
  #unreadable: string | undefined;

  readonly #takenUpAgain: boolean;

  /**
   * `storeCount` is how many events the store holds now; `onEvent(seq, event)` runs as any life appends an event;
   * `takenUpAgain`: several live hosts, whose kept logs may become the conversation's again.
   */
  constructor(storeCount: () => number, onEvent: (seq: number, event: AnyEvent) => void = () => undefined, options: { readonly takenUpAgain?: boolean } = {}) {
    this.#store = storeCount;
    this.#onEvent = onEvent;
    this.#takenUpAgain = options.takenUpAgain === true;
  }

  get lives(): number {
    return this.#lives.length;
  }

  /** The log of the life now running (the last opened). */
  get current(): EventLog | undefined {
    return this.#lives[this.#lives.length - 1]?.log;
  }

  /** A log was opened (before anything is appended to it): a new life. Returns its unsubscribe. */
  opened(log: EventLog): () => void {
    this.#begin(log, log.length, undefined);
    return log.subscribe((event) => {
      let life = this.#lives[this.#lastLifeOf(log)]!;
      if (this.#takenUpAgain && life !== this.#lives[this.#lives.length - 1]) life = this.#begin(log, event.seq, life.loop);
      life.durableBefore.push(this.#store());
      // A dead process's log may still grow in memory: only the running life's events trigger anything — not one
      // whose process crashed, though no new process has opened the log yet (outside probe 38, F2: an event trigger
      // meant for crash recovery's writes fired on what the dead process appended).
      if (this.#lives[this.#lives.length - 1] === life && life.dead !== true) this.#onEvent(event.seq, event);
    });
  }

  /** The process whose log this is crashed: its life is over, though its log may still grow in memory. */
  died(log: EventLog): void {
    const at = this.#lastLifeOf(log);
    if (at >= 0) this.#lives[at]!.dead = true;
  }

  /** A new life over `log` from seq `from` (what the store held then): the one running ends there. */
  #begin(log: EventLog, from: number, loop: AgentLoop | undefined): Life {
    const previous = this.#lives[this.#lives.length - 1];
    if (previous && previous.ended === undefined) previous.ended = from;
    const life: Life = { log, opened: from, durableBefore: [], loop, ended: undefined };
    this.#lives.push(life);
    return life;
  }

  /** The index of the latest life over `log` (-1: none). */
  #lastLifeOf(log: EventLog): number {
    for (let i = this.#lives.length - 1; i >= 0; i--) if (this.#lives[i]!.log === log) return i;
    return -1;
  }

  /**
   * After a crash no new process could read the conversation back (a store with a
   * gap): the dead life ends at what the store held when it died, and the case is
   * judged on that — nothing a process did beyond it survives, and no recovery ran.
   */
  unreadable(reason: string): void {
    const life = this.#lives[this.#lives.length - 1];
    if (life && life.ended === undefined) life.ended = Math.min(this.#store(), life.log.length);
    this.#unreadable ??= reason;
  }

  /** The loop over the current life's log. */
  started(loop: AgentLoop): void {
    const life = this.#lives[this.#lives.length - 1];
    if (life) life.loop = loop;
  }

  /** Where a request now going out sits: the current life, and its `model.request` (the last event appended). */
  origin(): RequestOrigin {
    const index = this.#lives.length - 1;
    const log = this.#lives[index]?.log;
    return { life: index, seq: log ? log.length - 1 : -1 };
  }

  /** A turn closed in `log`, with this result. */
  turnClosed(log: EventLog, result: TurnResult): void {
    this.#results.push(this.#placed(log, result, closedSeq(log, result.turn)));
  }

  /** A turn's trace ended in `log` (just after its `turn.closed`). */
  traced(log: EventLog, trace: TraceRecord, turn: number): void {
    this.#traces.push(this.#placed(log, trace, closedSeq(log, turn)));
  }

  #placed<T>(log: EventLog, value: T, seq: number): Placed<T> {
    const life = this.#lastLifeOf(log);
    return { life: life < 0 ? this.#lives.length - 1 : life, seq, value };
  }

  #emptyLife(): Life {
    const life: Life = { log: new EventLog({ now: () => 0 }, []), opened: 0, durableBefore: [], loop: undefined, ended: undefined };
    this.#lives.push(life);
    return life;
  }

  /** Keeps what the final log holds; `requests`/`responses`/`origins` are the model recording's, aligned. */
  finish(requests: readonly SentRequest[], responses: readonly ProviderCall[], origins: readonly RequestOrigin[]): RecordedCase {
    // No message ever reached a host that opens the conversation on its first one (a cancel
    // alone, through the production host): the case ran over an empty conversation.
    const final = this.#lives[this.#lives.length - 1] ?? this.#emptyLife();
    const kept = (life: number, seq: number): boolean => {
      const ended = this.#lives[life]?.ended;
      return ended === undefined || seq < ended;
    };
    const durableBefore: number[] = [];
    for (const life of this.#lives) {
      const upTo = life.ended ?? Number.POSITIVE_INFINITY;
      life.durableBefore.forEach((d, i) => {
        const seq = life.opened + i;
        if (seq < upTo) durableBefore[seq] = d;
      });
    }
    const keptRequests: SentRequest[] = [];
    const keptResponses: ProviderCall[] = [];
    requests.forEach((request, i) => {
      const origin = origins[i] ?? { life: 0, seq: -1 };
      if (!kept(origin.life, origin.seq)) return;
      keptRequests.push(request);
      keptResponses.push(responses[i]!);
    });
    const results = this.#results.filter((r) => kept(r.life, r.seq)).map((r) => r.value);
    const cut = final.ended !== undefined && final.ended < final.log.length;
    return {
      // A life cut short by an unreadable store: its log as the store held it (no loop ran over that).
      log: cut ? new EventLog({ now: () => 0 }, final.log.events.slice(0, final.ended)) : final.log,
      loop: cut ? undefined : final.loop,
      ...(this.#unreadable !== undefined ? { unreadable: this.#unreadable } : {}),
      durableBefore,
      requests: keptRequests,
      responses: keptResponses,
      results,
      traces: this.#traces.filter((t) => kept(t.life, t.seq)).map((t) => t.value),
      lost: { requests: requests.length - keptRequests.length, turns: this.#results.filter((r) => !kept(r.life, r.seq)).map((r) => r.value) },
      lives: this.#lives.length,
      opens: this.#lives.map((l) => l.opened),
    };
  }
}

/**
 * The seq of turn `turn`'s `turn.closed` in `log` (its last one), or the log's length
 * when it has none. Read back from the end, event by event: the close is near it, and
 * `log.events` would read the whole prefix of a log the host resumed from a snapshot
 * (every turn, as the host reopens a conversation for each).
 */
function closedSeq(log: EventLog, turn: number): number {
  for (let i = log.length - 1; i >= 0; i--) {
    const e = log.at(i)!;
    if (isKnown(e) && e.type === 'turn.closed' && (e as Extract<LogEvent, { type: 'turn.closed' }>).payload.turn === turn) return i;
  }
  return log.length;
}

/**
 * The loop's own incremental projection at the end (undefined when no loop ran over
 * the final log); a failure to compute it shows as an empty history (the checks
 * compare it with a replay).
 */
export function finalProjection(loop: AgentLoop | undefined): readonly Message[] | undefined {
  if (!loop) return undefined;
  try {
    return loop.projection.current();
  } catch {
    return [];
  }
}

/** The turn a trace is of (the turn span carries it; traces are named `<conversation>:<turn>` besides). */
export function traceTurn(trace: TraceRecord): number {
  const fromSpan = trace.spans.find((s) => s.kind === 'turn')?.attributes['turn'];
  return typeof fromSpan === 'number' ? fromSpan : Number(trace.traceId.slice(trace.traceId.lastIndexOf(':') + 1));
}
