/**
 * Cancellation merged from several sources — the user, a parent task, a shutdown —
 * keeping the first reason (seed 000 §6). A plain `AbortSignal.any` would lose
 * which source asked, and "the user pressed stop" and "the process is exiting" are
 * handled differently (logs, UI, whether to save state).
 */
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
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal, onAbort: () => T, onReject: (error: unknown) => T): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined); // settled or not, nobody waits for it now
    return Promise.resolve(onAbort());
  }
  return new Promise<T>((resolve) => {
    const listener = () => resolve(onAbort());
    signal.addEventListener('abort', listener, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', listener);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', listener);
        resolve(onReject(error));
      },
    );
  });
}
