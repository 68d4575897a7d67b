/**
 * One shared timer for many timeouts. Every tool call that runs asynchronously
 * races a timeout that almost never fires: a Node `setTimeout` + `clearTimeout`
 * (and an `AbortController` to release a sleeping promise) per call is work for
 * nothing. Here timeouts wait in lanes, one per delay — a FIFO list, so deadlines
 * in a lane are in order (the clock is monotonic) — under one Node timer armed
 * for the earliest deadline. Setting and cancelling cost a list append and an
 * unlink; the Node timer is re-armed only when an earlier deadline arrives or it
 * fires.
 *
 * The Node timer keeps the process alive only while a timeout is pending (it is
 * unref'd when the last one is cancelled), like a `setTimeout` per call would.
 */

/** A timeout set on a clock: cancel it before it fires and it never does. */
export interface ClockTimer {
  cancel(): void;
}

class Entry implements ClockTimer {
  prev: Entry | undefined = undefined;
  next: Entry | undefined = undefined;
  readonly lane: Lane;
  readonly at: number;
  fire: (() => void) | undefined;

  constructor(lane: Lane, at: number, fire: () => void) {
    this.lane = lane;
    this.at = at;
    this.fire = fire;
  }

  cancel(): void {
    if (this.fire === undefined) return;
    this.fire = undefined;
    this.lane.unlink(this);
    this.lane.wheel.released();
  }
}

class Lane {
  head: Entry | undefined = undefined;
  tail: Entry | undefined = undefined;
  readonly wheel: TimerWheel;

  constructor(wheel: TimerWheel) {
    this.wheel = wheel;
  }

  push(entry: Entry): void {
    entry.prev = this.tail;
    if (this.tail) this.tail.next = entry;
    else this.head = entry;
    this.tail = entry;
  }

  unlink(entry: Entry): void {
    if (entry.prev) entry.prev.next = entry.next;
    else this.head = entry.next;
    if (entry.next) entry.next.prev = entry.prev;
    else this.tail = entry.prev;
    entry.prev = entry.next = undefined;
  }
}

export class TimerWheel {
  readonly #lanes = new Map<number, Lane>();
  readonly #now: () => number;
  #pending = 0;
  #handle: ReturnType<typeof setTimeout> | undefined;
  /** When the Node timer fires (Infinity when none is armed). */
  #armedAt = Number.POSITIVE_INFINITY;

  /** @param now a monotonic clock in ms (default `performance.now`). */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** Timeouts set and not yet fired or cancelled. */
  get pending(): number {
    return this.#pending;
  }

  /** Calls `fire` after `ms` (as `setTimeout` would: a delay below 1 ms, or not a number, is 1 ms). */
  set(ms: number, fire: () => void): ClockTimer {
    const delay = ms >= 1 && ms <= MAX_DELAY ? ms : 1;
    let lane = this.#lanes.get(delay);
    if (lane === undefined) {
      lane = new Lane(this);
      this.#lanes.set(delay, lane);
    }
    const entry = new Entry(lane, this.#now() + delay, fire);
    lane.push(entry);
    if (this.#pending++ === 0 && this.#handle !== undefined) this.#handle.ref();
    if (entry.at < this.#armedAt) this.#arm(entry.at);
    return entry;
  }

  /** A pending timeout was cancelled. */
  released(): void {
    if (--this.#pending === 0 && this.#handle !== undefined) this.#handle.unref();
  }

  #arm(at: number): void {
    if (this.#handle !== undefined) clearTimeout(this.#handle);
    this.#armedAt = at;
    this.#handle = setTimeout(() => this.#fireDue(), Math.max(1, Math.ceil(at - this.#now())));
  }

  #fireDue(): void {
    this.#handle = undefined;
    this.#armedAt = Number.POSITIVE_INFINITY;
    const now = this.#now();
    const due: (() => void)[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const [delay, lane] of this.#lanes) {
      while (lane.head !== undefined && lane.head.at <= now) {
        const entry = lane.head;
        due.push(entry.fire!);
        entry.fire = undefined;
        lane.unlink(entry);
        this.#pending--;
      }
      if (lane.head === undefined) this.#lanes.delete(delay);
      else if (lane.head.at < next) next = lane.head.at;
    }
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next);
    for (const fire of due) {
      try {
        fire();
      } catch (error) {
        // As a throwing setTimeout callback would: reported, and the other timeouts still fire.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }
}

/** The longest delay Node's timers take (2^31 - 1 ms); longer ones fire after 1 ms, as in `setTimeout`. */
const MAX_DELAY = 2_147_483_647;

/**
 * The longest timeout an agent may declare (a tool's `timeoutMs`, the policy's
 * `approvalTimeoutMs`, `config.modelTimeoutMs`): a real timer fires a longer delay
 * after 1 ms, so the production host would end at once what the gate's virtual
 * clock waits for (probe 18).
 */
export const MAX_TIMEOUT_MS = MAX_DELAY;

/** Why a declared timeout longer than MAX_TIMEOUT_MS is refused. */
export const TIMEOUT_TOO_LONG = `must be at most ${MAX_DELAY} ms, about 24.8 days: a timer fires a longer delay at once`;
