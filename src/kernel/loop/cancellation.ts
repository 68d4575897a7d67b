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
  /** Read once: every model and tool call of a turn reads the scope's signal, and Node's getter validates its receiver each time. */
  readonly #signal = this.#controller.signal;
  #first: CancelReason | undefined;
  readonly #detach: (() => void)[] = [];

  /**
   * Links external signals as sources (e.g. a parent's signal, the host's shutdown
   * signal). `onLinked` is told of a cancel a link made (one that won), so the
   * owner records it as it records its own: at once when a signal aborts later,
   * from inside this constructor when one is already aborted.
   */
  constructor(links: readonly { readonly signal: AbortSignal; readonly by: CancelSource }[] = [], onLinked?: (cancelled: CancelReason) => void) {
    for (const { signal, by } of links) {
      const onAbort = () => {
        if (this.cancel(by, reasonText(signal.reason, by))) onLinked?.(this.#first!);
      };
      if (signal.aborted) onAbort();
      else {
        signal.addEventListener('abort', onAbort, { once: true });
        this.#detach.push(() => signal.removeEventListener('abort', onAbort));
      }
    }
  }

  get signal(): AbortSignal {
    return this.#signal;
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
 * whichever is first; a rejection becomes `onReject(error)`. Never rejects (an
 * `onAbort` that returns a promise must not reject either).
 *
 * With `timeout`, also with `timeout.value()` once `timeout.ms` have passed on
 * `timeout.clock` — unless that returns undefined, in which case the race goes on.
 * With `map`, the promise's value is settled as `map(value)` (a throw there is a
 * rejection): a check of the answer without a promise of its own.
 *
 * The signal is watched through abort-watch.ts and the timeout set with
 * `Clock.setTimer` when the clock has it: no listener records, no `Event` objects,
 * no promise per timer.
 */
export function raceAbort<T>(
  promise: Promise<T>,
  signal: AbortSignal,
  onAbort: () => T | Promise<T>,
  onReject: (error: unknown) => T,
  timeout?: { readonly clock: Clock; readonly ms: number; readonly value: () => T | undefined },
  map?: (value: T) => T,
): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined); // settled or not, nobody waits for it now
    return Promise.resolve(onAbort());
  }
  return new Promise<T>((resolve) => {
    let done = false;
    let timer: ClockTimer | undefined;
    let sleeping: AbortController | undefined;
    const settle = (value: T | Promise<T>) => {
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
    const rejected = (error: unknown) => settle(onReject(error));
    if (map === undefined) promise.then(settle, rejected);
    else
      promise.then((value) => {
        if (done) return;
        let mapped: T;
        try {
          mapped = map(value);
        } catch (error) {
          return rejected(error);
        }
        settle(mapped);
      }, rejected);
  });
}

/**
 * What a call its turn's cancel cut short settles with. A client that keeps its
 * contract settles at once when aborted — with the usage its stream had already
 * reported, tokens the provider bills whether or not the answer finished — so its
 * own answer is waited for until the clock's next timer turn (no time passes) and
 * `keep(answer)` taken from it; a client that hangs gets `aborted`.
 */
export function answerAfterAbort<T>(call: Promise<T>, clock: Clock, aborted: T, keep: (answer: T) => T): Promise<T> {
  return new Promise<T>((resolve) => {
    let done = false;
    const give = (value: T) => {
      if (done) return;
      done = true;
      timer?.cancel();
      resolve(value);
    };
    let timer: ClockTimer | undefined;
    if (clock.setTimer) timer = clock.setTimer(0, () => give(aborted));
    else void clock.sleep(0).then(() => give(aborted));
    call.then(
      (answer) => give(keep(answer)),
      () => give(aborted),
    );
  });
}
