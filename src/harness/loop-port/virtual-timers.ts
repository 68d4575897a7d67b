/**
 * Virtual time for a loop that takes no clock: while a peer's case runs, the
 * global `setTimeout` / `clearTimeout` / `setInterval` / `clearInterval` are
 * swapped for timers on the case's VirtualClock — the AI SDK's retry `delay()`,
 * OpenAI Agents' tool timeouts and backoff, the `openai` client's `sleep` all
 * read the globals when they run — and put back when it ends.
 *
 * Only code running for the case is on virtual time: a timer set outside the
 * case's async context — by an in-process fake service the config started, a
 * pool or a server of the process's own — is real, as it is in every other
 * loop (a service answering after a 30 ms timer of its own would otherwise
 * wait for the tool's grace of real time to pass, then for virtual time).
 *
 * `AbortSignal.timeout` is swapped too: a team's `generateText({ timeout })`
 * aborts through it, and a gate where the model's virtual minute passed under
 * a real 5 s timeout would certify a turn production ends.
 *
 * Limits, stated: the swap is process-wide, so peer cases run one at a time
 * (`withVirtualTimers` queues them) and a `--loop` run holds only that loop's
 * cases; `performance.now()` stays real; the clock's own waits for real I/O
 * keep the real timers (captured in virtual-clock.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { VirtualClock } from '../virtual-clock.ts';

/** Set in the async context of the case's work: what runs there is on the case's clock. */
const inCase = new AsyncLocalStorage<true>();

type Handle = { cancel(): void; release(): void };

/**
 * What Node's Timeout offers that callers use (unref, ref, hasRef, refresh, a
 * primitive id). An unref'd timer is housekeeping (undici's 499 ms tick): no
 * body waits on it, so a tool waiting on real I/O still holds virtual time.
 */
class VirtualTimeout {
  static #ids = 1;
  readonly id = VirtualTimeout.#ids++;
  handle: Handle | undefined;
  readonly rearm: () => Handle | undefined;
  #unref = false;
  constructor(rearm: () => Handle | undefined) {
    this.rearm = rearm;
    this.handle = rearm();
  }
  unref(): this {
    this.#unref = true;
    this.handle?.release();
    return this;
  }
  ref(): this {
    this.#unref = false;
    return this;
  }
  hasRef(): boolean {
    return !this.#unref;
  }
  refresh(): this {
    this.handle?.cancel();
    this.handle = this.rearm();
    if (this.#unref) this.handle?.release();
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
      return await inCase.run(true, work);
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
  const savedSignalTimeout = AbortSignal.timeout;
  const byId = new Map<number, VirtualTimeout>();
  const clear = (t: unknown) => {
    const timeout = t instanceof VirtualTimeout ? t : typeof t === 'number' ? byId.get(t) : undefined;
    if (timeout) {
      timeout.close();
      byId.delete(timeout.id);
    } else saved.clearTimeout(t as Parameters<typeof clearTimeout>[0]); // a real one (set outside the case), or nothing
  };
  const setTimeout = (fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    if (inCase.getStore() !== true) return saved.setTimeout(fn, ms, ...args);
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
    if (inCase.getStore() !== true) return saved.setInterval(fn, ms, ...args);
    const every = Math.max(1, ms ?? 0);
    const t: VirtualTimeout = new VirtualTimeout(function arm(): Handle {
      return clock.setTimer(every, () => {
        t.handle = arm();
        if (!t.hasRef()) t.handle.release();
        fn(...args);
      });
    });
    byId.set(t.id, t);
    return t;
  };
  // As Node's: aborted with a TimeoutError once `ms` have passed; it keeps nothing waiting (an unref'd timer).
  const signalTimeout = (ms: number): AbortSignal => {
    if (inCase.getStore() !== true) return savedSignalTimeout.call(AbortSignal, ms);
    const controller = new AbortController();
    const handle = clock.setTimer(ms, () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')));
    handle.release();
    return controller.signal;
  };
  const g = globalThis as unknown as Record<string, unknown>;
  g['setTimeout'] = setTimeout;
  g['clearTimeout'] = clear;
  g['setInterval'] = setInterval;
  g['clearInterval'] = clear;
  AbortSignal.timeout = signalTimeout;
  return () => {
    for (const t of byId.values()) t.close();
    Object.assign(globalThis, saved);
    AbortSignal.timeout = savedSignalTimeout;
  };
}
