/**
 * Cancellation merged from several sources — the user, a parent task, a shutdown —
 * keeping the first reason (seed 000 §6). A plain `AbortSignal.any` would lose
 * which source asked, and "the user pressed stop" and "the process is exiting" are
 * handled differently (logs, UI, whether to save state).
 */
import { unwatchAbort, watchAbort } from '../abort-watch.ts';
import type { Clock, ClockTimer } from '../clock.ts';
import type { CancelSource } from '../outcome.ts';

export interface CancelReason {
  readonly by: CancelSource;
  readonly reason: string;
}

export class CancelScope {
  readonly #controller = new AbortController();
  #first: CancelReason | undefined;
  readonly #detach: (() => void)[] = [];

  /** Links external signals as sources (e.g. a parent's signal, the host's shutdown signal). */
  constructor(links: readonly { readonly signal: AbortSignal; readonly by: CancelSource }[] = []) {
    for (const { signal, by } of links) {
      const onAbort = () => this.cancel(by, reasonText(signal.reason, by));
      if (signal.aborted) onAbort();
      else {
        signal.addEventListener('abort', onAbort, { once: true });
        this.#detach.push(() => signal.removeEventListener('abort', onAbort));
      }
    }
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get cancelled(): CancelReason | undefined {
    return this.#first;
  }

  /** The first call wins; later ones are ignored. Returns whether this call won. */
  cancel(by: CancelSource, reason = `cancelled by ${by}`): boolean {
    if (this.#first) return false;
    this.#first = { by, reason };
    this.#controller.abort(this.#first);
    return true;
  }

  dispose(): void {
    for (const d of this.#detach.splice(0)) d();
  }
}

function reasonText(reason: unknown, by: CancelSource): string {
  if (typeof reason === 'string') return reason;
  if (reason instanceof Error) return reason.message;
  return `cancelled by ${by}`;
}

/**
 * Settles with the promise's value, or with `onAbort()` as soon as `signal` aborts,
 * whichever is first; a rejection becomes `onReject(error)`. Never rejects.
 *
 * With `timeout`, also with `timeout.value()` once `timeout.ms` have passed on
 * `timeout.clock` — unless that returns undefined, in which case the race goes on.
 * The signal is watched through abort-watch.ts and the timeout set with
 * `Clock.setTimer` when the clock has it: no listener records, no `Event` objects,
 * no promise per timer.
 */
export function raceAbort<T>(
  promise: Promise<T>,
  signal: AbortSignal,
  onAbort: () => T,
  onReject: (error: unknown) => T,
  timeout?: { readonly clock: Clock; readonly ms: number; readonly value: () => T | undefined },
): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined); // settled or not, nobody waits for it now
    return Promise.resolve(onAbort());
  }
  return new Promise<T>((resolve) => {
    let done = false;
    let timer: ClockTimer | undefined;
    let sleeping: AbortController | undefined;
    const settle = (value: T) => {
      if (done) return;
      done = true;
      unwatchAbort(signal, aborted);
      timer?.cancel();
      sleeping?.abort('settled');
      resolve(value);
    };
    const aborted = () => settle(onAbort());
    watchAbort(signal, aborted);
    if (timeout) {
      const fire = () => {
        if (done) return;
        const value = timeout.value();
        if (value !== undefined) settle(value);
      };
      if (timeout.clock.setTimer) timer = timeout.clock.setTimer(timeout.ms, fire);
      else {
        sleeping = new AbortController();
        timeout.clock.sleep(timeout.ms, sleeping.signal).then(() => {
          if (!sleeping!.signal.aborted) fire();
        });
      }
    }
    promise.then(settle, (error: unknown) => settle(onReject(error)));
  });
}
