/**
 * Virtual time for a loop that takes no clock: while a peer's case runs, the
 * global `setTimeout` / `clearTimeout` / `setInterval` / `clearInterval` are
 * swapped for timers on the case's VirtualClock — the AI SDK's retry `delay()`,
 * OpenAI Agents' tool timeouts and backoff, the `openai` client's `sleep` all
 * read the globals when they run — and put back when it ends.
 *
 * Limits, stated: the swap is process-wide, so peer cases run one at a time
 * (`withVirtualTimers` queues them) and a `--loop` run holds only that loop's
 * cases; `AbortSignal.timeout` and `performance.now()` stay real; the clock's
 * own waits for real I/O keep the real timers (captured in virtual-clock.ts).
 */
import type { VirtualClock } from '../virtual-clock.ts';

type Handle = { cancel(): void };

/** What Node's Timeout offers that callers use (unref, ref, hasRef, refresh, a primitive id). */
class VirtualTimeout {
  static #ids = 1;
  readonly id = VirtualTimeout.#ids++;
  handle: Handle | undefined;
  readonly rearm: () => Handle | undefined;
  constructor(rearm: () => Handle | undefined) {
    this.rearm = rearm;
    this.handle = rearm();
  }
  unref(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  hasRef(): boolean {
    return true;
  }
  refresh(): this {
    this.handle?.cancel();
    this.handle = this.rearm();
    return this;
  }
  close(): this {
    this.handle?.cancel();
    this.handle = undefined;
    return this;
  }
  [Symbol.toPrimitive](): number {
    return this.id;
  }
}

let queue: Promise<unknown> = Promise.resolve();

/** Runs `work` with the global timers on `clock`, one such case at a time in the process. */
export function withVirtualTimers<T>(clock: VirtualClock, work: () => Promise<T>): Promise<T> {
  const run = queue.then(async () => {
    const restore = install(clock);
    try {
      return await work();
    } finally {
      restore();
    }
  });
  queue = run.catch(() => undefined);
  return run;
}

function install(clock: VirtualClock): () => void {
  const saved = {
    setTimeout: globalThis.setTimeout,
    clearTimeout: globalThis.clearTimeout,
    setInterval: globalThis.setInterval,
    clearInterval: globalThis.clearInterval,
  };
  const byId = new Map<number, VirtualTimeout>();
  const clear = (t: unknown) => {
    const timeout = t instanceof VirtualTimeout ? t : typeof t === 'number' ? byId.get(t) : undefined;
    if (timeout) {
      timeout.close();
      byId.delete(timeout.id);
    }
  };
  const setTimeout = (fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const t: VirtualTimeout = new VirtualTimeout(() =>
      clock.setTimer(ms ?? 0, () => {
        byId.delete(t.id);
        t.handle = undefined;
        fn(...args);
      }),
    );
    byId.set(t.id, t);
    return t;
  };
  const setInterval = (fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const every = Math.max(1, ms ?? 0);
    const t: VirtualTimeout = new VirtualTimeout(function arm(): Handle {
      return clock.setTimer(every, () => {
        t.handle = arm();
        fn(...args);
      });
    });
    byId.set(t.id, t);
    return t;
  };
  const g = globalThis as unknown as Record<string, unknown>;
  g['setTimeout'] = setTimeout;
  g['clearTimeout'] = clear;
  g['setInterval'] = setInterval;
  g['clearInterval'] = clear;
  return () => {
    for (const t of byId.values()) t.close();
    Object.assign(globalThis, saved);
  };
}
