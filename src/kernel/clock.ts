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

export const systemClock: Clock = {
  now: () => Date.now(),
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
