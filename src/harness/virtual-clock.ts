/**
 * A virtual clock: time advances only when every task is waiting on it. Backoffs,
 * timeouts and slow tools then cost no real time, and a run is deterministic.
 *
 * `run(promise)` drives it: let everything runnable run (a macrotask turn drains
 * all pending microtasks), and if the promise is still pending, fire the earliest
 * timer — advancing `now` to its time — and repeat. Timers due at the same time
 * fire in the order they were set. When no timer is pending but the work is still
 * not done, something is waiting on real I/O (a wire-level fake over loopback):
 * give it real time, up to `realWaitLimitMs`.
 *
 * A tool of the agent under test may wait on real work of its own (a request to a
 * service, a file, a database): while its body (`runBody`) is pending and not
 * waiting on this clock, virtual time stands still — its timeout must not fire
 * in virtual time while the real answer is on its way — for up to
 * REAL_WORK_GRACE_MS of real time each.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Clock } from '../kernel/index.ts';

interface Timer {
  readonly at: number;
  readonly order: number;
  readonly fire: () => void;
}

export class VirtualClockStallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VirtualClockStallError';
  }
}

// The real timers, captured before anything can swap the globals (loop-port/virtual-timers.ts does, for a peer's case).
const realSetImmediate = globalThis.setImmediate;
const realSetTimeout = globalThis.setTimeout;
const macrotask = () => new Promise<void>((resolve) => realSetImmediate(resolve));
/** The most one pause of the event loop counts towards a stall (see `VirtualClock.run`). */
const MAX_PAUSE_MS = 50;
/**
 * Turns of the event loop `run` yields, with nothing to fire, before it sleeps a
 * real millisecond: tracked work in process (a SQLite store's group commit, a
 * setImmediate away) settles within a turn or two, and a 1 ms timer for each
 * such wait was a tenth of a fuzzed case's wall time.
 */
const SPIN_TURNS = 8;

/**
 * The most real time a tool waiting on real work holds virtual time still; then
 * virtual time passes again (a tool that hangs on real I/O meets its timeout).
 */
export const REAL_WORK_GRACE_MS = 5_000;

/**
 * A body of the agent under test's own, pending: until when it may hold virtual
 * time, and how many of this clock's timers it waits on now (set in its async
 * context). A body waiting on a virtual timer holds nothing: the timer must fire.
 * Whatever else it waits on — a timer of its own, a socket, a file, a pooled
 * connection opened long before — is real work, which virtual time waits for.
 */
interface RealWait {
  readonly until: number;
  virtual: number;
}

const bodyContext = new AsyncLocalStorage<RealWait>();

/** Counts a virtual timer set in a body's async context for as long as it is pending; returns what ends the count. */
function countedFor(): () => void {
  const wait = bodyContext.getStore();
  if (!wait) return () => {};
  wait.virtual++;
  let counted = true;
  return () => {
    if (!counted) return;
    counted = false;
    wait.virtual--;
  };
}

/** A timer set on the clock: cancel it before it fires and it never does. */
export interface VirtualTimer {
  cancel(): void;
  /**
   * No body waits on it (an unref'd timer: a library's housekeeping tick): a
   * body that set it and waits on real work still holds virtual time. It fires
   * when time passes, as before.
   */
  release(): void;
}

export class VirtualClock implements Clock {
  #now: number;
  #order = 0;
  #timers: Timer[] = [];
  #inflight = 0;
  /** Tracked work that has settled so far: each is progress (see `run`). */
  #settledWork = 0;
  readonly #realWaits = new Set<RealWait>();

  constructor(start = 0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  get pendingTimers(): number {
    return this.#timers.length;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const uncount = countedFor();
      const timer: Timer = {
        at: this.#now + Math.max(0, ms),
        order: this.#order++,
        fire: () => {
          uncount();
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        uncount();
        this.#timers = this.#timers.filter((t) => t !== timer);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#insert(timer);
    });
  }

  /** Runs `fire` once `ms` of virtual time have passed, unless cancelled first (what a swapped global setTimeout uses). */
  setTimer(ms: number, fire: () => void): VirtualTimer {
    const uncount = countedFor();
    const timer: Timer = {
      at: this.#now + Math.max(0, Number.isFinite(ms) ? ms : 0),
      order: this.#order++,
      fire: () => {
        uncount();
        fire();
      },
    };
    this.#insert(timer);
    return {
      cancel: () => {
        uncount();
        this.#timers = this.#timers.filter((t) => t !== timer);
      },
      release: uncount,
    };
  }

  #insert(timer: Timer): void {
    let i = this.#timers.length;
    while (i > 0 && (this.#timers[i - 1]!.at > timer.at || (this.#timers[i - 1]!.at === timer.at && this.#timers[i - 1]!.order > timer.order))) i--;
    this.#timers.splice(i, 0, timer);
  }

  /**
   * Marks real I/O in flight (a request to a wire-level fake): while any is,
   * virtual time stands still — a virtual timeout must not fire just because the
   * bytes have not arrived within one turn of the event loop.
   */
  track<T>(work: Promise<T>): Promise<T> {
    this.#inflight++;
    return work.finally(() => {
      this.#inflight--;
      this.#settledWork++;
    });
  }

  /**
   * Runs a body of the agent under test's own (a tool, which may wait on real
   * I/O). While what it returned is pending, and it waits on none of this
   * clock's timers, virtual time stands still, for at most `graceMs` of real
   * time — no stall counted meanwhile; its settling is progress (see `run`).
   * Returns what the body returned, as it returned it.
   */
  runBody<T>(body: () => T, graceMs = REAL_WORK_GRACE_MS): T {
    const wait: RealWait = { until: Date.now() + graceMs, virtual: 0 };
    const value = bodyContext.run(wait, body);
    if (typeof (value as { then?: unknown } | null | undefined)?.then !== 'function') return value;
    this.#realWaits.add(wait);
    const done = () => {
      this.#realWaits.delete(wait);
      this.#settledWork++;
    };
    Promise.resolve(value).then(done, done);
    return value;
  }

  /** Whether a body still waits on real work (pending, on no virtual timer), within its grace. */
  #waitingOnRealWork(): boolean {
    if (this.#realWaits.size === 0) return false;
    const now = Date.now();
    let waiting = false;
    for (const wait of this.#realWaits) {
      // Its grace spent (a body that hangs): no longer held for, its timeout may fire.
      if (now >= wait.until) this.#realWaits.delete(wait);
      else if (wait.virtual === 0) waiting = true;
    }
    return waiting;
  }

  /** Fires the earliest timer. Returns false if there is none. */
  fireNext(): boolean {
    const timer = this.#timers.shift();
    if (!timer) return false;
    this.#now = Math.max(this.#now, timer.at);
    timer.fire();
    return true;
  }

  /**
   * Time passes while real I/O is in flight (a streamed chunk took `ms`): `now`
   * moves on at once, and every timer due by then fires, in order — their
   * continuations run as soon as the caller yields.
   */
  elapse(ms: number): void {
    const target = this.#now + Math.max(0, ms);
    while (this.#timers.length > 0 && this.#timers[0]!.at <= target) this.fireNext();
    this.#now = target;
  }

  /** Advances time by `ms`, firing every timer due on the way, in order. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    while (this.#timers.length > 0 && this.#timers[0]!.at <= target) {
      this.fireNext();
      await macrotask();
    }
    this.#now = target;
  }

  /** Runs until `work` settles, advancing virtual time whenever everything waits on it. */
  async run<T>(work: Promise<T>, options: { realWaitLimitMs?: number } = {}): Promise<T> {
    const limit = options.realWaitLimitMs ?? 10_000;
    let settled = false;
    work.then(
      () => (settled = true),
      () => (settled = true),
    );
    // Real time waited with no progress. Each pause counts for at most MAX_PAUSE_MS: when other
    // work in the process (another case's synchronous checks) holds the event loop for seconds,
    // this run was not waiting on anything — only a run that keeps finding nothing to do stalls.
    let waited = 0;
    let last = 0;
    let progress = this.#settledWork;
    let idle = 0; // turns in a row with nothing to fire
    for (;;) {
      await macrotask();
      if (settled) return work;
      // Tracked real I/O that settled (a write, a wire response) is progress, as a timer fired is.
      if (this.#settledWork !== progress) {
        progress = this.#settledWork;
        waited = 0;
        last = 0;
        idle = 0;
      }
      const holding = this.#waitingOnRealWork();
      if (this.#inflight === 0 && !holding && this.fireNext()) {
        waited = 0;
        last = 0;
        idle = 0;
        continue;
      }
      // Real I/O is in flight (tracked, or nothing is scheduled on the virtual clock): give it real time.
      const now = Date.now();
      // A body waiting on real work of its own is not a stall: its grace bounds the wait.
      if (last !== 0 && !holding) waited += Math.min(now - last, MAX_PAUSE_MS);
      last = now;
      if (waited > limit) {
        throw new VirtualClockStallError(`no progress for ${limit} ms of real time with no virtual timer pending (a task waits on something that never comes)`);
      }
      // A few turns of the event loop first (the next one is the loop's own macrotask), then real time.
      if (++idle <= SPIN_TURNS) continue;
      await new Promise((resolve) => realSetTimeout(resolve, 1));
    }
  }
}
