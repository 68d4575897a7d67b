/**
 * Time, as the kernel sees it. The production host uses the system clock; the
 * harness a virtual one, so backoffs and timeouts cost no real time.
 * Time is for people and budgets, never for ordering (the log's `seq` orders).
 */
import { TimerWheel, type ClockTimer } from './timer-wheel.ts';

export type { ClockTimer } from './timer-wheel.ts';

export interface Clock {
  /** Milliseconds since the epoch (or since the virtual clock's origin). */
  now(): number;
  /** Resolves after `ms`; resolves early (never rejects) when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Calls `fire` once `ms` have passed, unless cancelled first. Optional: the
   * loop's timeouts use it when present (no promise, no AbortSignal), and
   * `sleep` otherwise.
   */
  setTimer?(ms: number, fire: () => void): ClockTimer;
}

/** The system clock's timeouts share one Node timer. */
const wheel = new TimerWheel();

/**
 * One timestamp for a stretch of the kernel's own synchronous work (a step's
 * events and spans, written microseconds apart), instead of a `Date.now()` for
 * each. Between `holdTime()` and `releaseTime()` — always paired in a
 * `try`/`finally` around synchronous code, so a hold never outlives the call
 * stack that took it and no other conversation's work can run inside it —
 * `systemClock.now()` reads the clock once, at its first call, and gives that
 * value after. Foreign code inside a hold that may take real time (a tool's run,
 * a policy asked, a model client's call) runs between `suspendTime()` and
 * `resumeTime()`: the clock runs free there, and the next `now()` after it reads
 * the clock again. Holds nest. Only `systemClock` follows them: a virtual clock
 * gives what it always gives.
 */
let holdDepth = 0;
/** The held timestamp, -1 until the first `now()` of the hold. */
let heldAt = -1;

export function holdTime(): void {
  holdDepth++;
}

export function releaseTime(): void {
  if (--holdDepth <= 0) {
    holdDepth = 0;
    heldAt = -1;
  }
}

/** Lets the clock run free for foreign code inside a hold; returns what `resumeTime` takes back. */
export function suspendTime(): number {
  const depth = holdDepth;
  holdDepth = 0;
  heldAt = -1;
  return depth;
}

/** After `suspendTime()`: the hold again, with a fresh timestamp at the next `now()`. */
export function resumeTime(depth: number): void {
  holdDepth = depth;
  heldAt = -1;
}

function heldNow(): number {
  if (holdDepth === 0) return Date.now();
  if (heldAt < 0) heldAt = Date.now();
  return heldAt;
}

export const systemClock: Clock = {
  now: heldNow,
  sleep(ms, signal) {
    return new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const onAbort = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
  setTimer: (ms, fire) => wheel.set(ms, fire),
};
