/**
 * How long loopgate waits, in real time, for the code under test to finish
 * loading — a config module's top-level await, an agent factory built before
 * anything runs. A promise that never settles with nothing else to run is told
 * when the event loop empties; one waiting on a timer or a socket keeps the loop
 * alive, and without a limit the command would hang until CI kills it.
 */
import { InputError, MAX_TIMEOUT_MS } from '../../kernel/index.ts';

export const LOAD_LIMIT_ENV = 'LOOPGATE_LOAD_TIMEOUT_MS';
const DEFAULT_LOAD_LIMIT_MS = 60_000;

/** The limit: LOOPGATE_LOAD_TIMEOUT_MS, or 60 s. Throws an InputError for a value that is not a whole number of milliseconds. */
export function loadLimitMs(env: NodeJS.ProcessEnv = process.env): number {
  return realTimeLimitMs(env, LOAD_LIMIT_ENV, DEFAULT_LOAD_LIMIT_MS);
}

/** A real-time limit the environment may set (`name`, in whole milliseconds), or `fallbackMs`; an InputError naming the variable otherwise. */
export function realTimeLimitMs(env: NodeJS.ProcessEnv, name: string, fallbackMs: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallbackMs;
  const ms = Number(raw);
  // A longer limit is no limit at all: Node's timer fires it after 1 ms (probe 18).
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(ms) || ms < 1 || ms > MAX_TIMEOUT_MS)
    throw new InputError(`${name}=${raw}: expected a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS} (about 24.8 days)`);
  return ms;
}

/** `1.5 s`, `60 s`, `250 ms`. */
export function showLimit(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${Number((ms / 1_000).toFixed(1))} s`;
}

export const TIMED_OUT: unique symbol = Symbol('timed out');

/** The work's value, or TIMED_OUT once `ms` of real time passed first. The timer never holds the process. */
export function withinRealTime<T>(work: PromiseLike<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
    timer.unref();
  });
  return Promise.race([Promise.resolve(work), limit]).finally(() => clearTimeout(timer));
}
