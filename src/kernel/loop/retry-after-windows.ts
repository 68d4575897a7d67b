/**
 * The retry-after windows of a conversation's model clients, read from the log: a
 * client that answered with a retry-after is not asked again before it ends — not
 * by the next attempt, nor the next step, nor the next turn (field failure:
 * after a 429 with a long retry-after sent step 1 to the fallback, step 2 went
 * straight back to the primary). A window runs from the result's time for the
 * retry-after it gave; clients are told apart by name.
 *
 * Kept as an incremental fold of the log, like the projection: nothing here that
 * the log could not rebuild, so a reopened conversation remembers its windows.
 */
import type { EventLog } from '../log/event-log.ts';
import type { LogEvent } from '../log/envelope.ts';
import { foldSeed } from './fold-seed.ts';

/** The windows as plain data at the log's length `upTo` (for a snapshot of derived state). */
export interface WindowsState {
  readonly upTo: number;
  /** [turn/step/attempt, client] of requests whose result is not read yet */
  readonly open: readonly (readonly [string, string])[];
  /** [client, until (ms)] */
  readonly until: readonly (readonly [string, number])[];
}

/** Windows restored from snapshots, waiting for the log's RetryAfterWindows (taken once). */
const seeds = foldSeed<WindowsState>(
  'retry-after windows',
  (state) =>
    Array.isArray(state.open) &&
    state.open.every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === 'string' && typeof e[1] === 'string') &&
    Array.isArray(state.until) &&
    state.until.every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === 'string' && Number.isFinite(e[1])),
);

/** Seeds the windows of a log resumed from a snapshot. Throws (saying what) when `state` is malformed. */
export function seedWindows(log: EventLog, state: WindowsState): void {
  seeds.put(log, state);
}

export class RetryAfterWindows {
  readonly #log: EventLog;
  #upTo = 0;
  /** turn/step/attempt → the client a request went to, until its result is read. */
  readonly #open = new Map<string, string>();
  /** The last request, while unanswered. */
  #last: { readonly turn: number; readonly step: number; readonly attempt: number; readonly client: string } | undefined;
  readonly #until = new Map<string, number>();

  /** Folds the log as it is now: a reopened conversation pays for its history here, once, not in its first step. */
  constructor(log: EventLog) {
    this.#log = log;
    const seed = seeds.take(log);
    if (seed) {
      this.#upTo = seed.upTo;
      for (const [k, client] of seed.open) this.#open.set(k, client);
      for (const [client, until] of seed.until) this.#until.set(client, until);
    }
    this.#fold();
  }

  /** The windows as plain data at the log's current length. */
  state(): WindowsState {
    this.#fold();
    const open: (readonly [string, string])[] = [...this.#open];
    if (this.#last) open.push([key(this.#last), this.#last.client]);
    return { upTo: this.#upTo, open, until: [...this.#until] };
  }

  /** When the client's window ends (ms on the log's clock), or undefined if it never gave one. */
  until(client: string): number | undefined {
    this.#fold();
    return this.#until.get(client);
  }

  /** Has any client ever given a retry-after (so that some window may be open)? */
  any(): boolean {
    this.#fold();
    return this.#until.size > 0;
  }

  /** Is the client inside its window at `now`? */
  closed(client: string, now: number): boolean {
    return (this.until(client) ?? Number.NEGATIVE_INFINITY) > now;
  }

  #fold(): void {
    const log = this.#log;
    const length = log.length;
    for (let i = this.#upTo; i < length; i++) {
      const e = log.at(i)!;
      if (e.opaque) continue;
      const event = e as LogEvent;
      if (event.type === 'model.request') {
        // A request is answered before the next is sent: the last one is kept as is,
        // and only one still unanswered when another comes goes to the map.
        if (this.#last) this.#open.set(key(this.#last), this.#last.client);
        this.#last = event.payload;
      } else if (event.type === 'model.result') {
        const p = event.payload;
        let client: string | undefined;
        if (this.#last && this.#last.turn === p.turn && this.#last.step === p.step && this.#last.attempt === p.attempt) {
          client = this.#last.client;
          this.#last = undefined;
          if (this.#open.size > 0) this.#open.delete(key(p));
        } else if (this.#open.size > 0) {
          client = this.#open.get(key(p));
          this.#open.delete(key(p));
        }
        const retryAfter = p.result.retryAfterMs;
        if (client !== undefined && retryAfter !== undefined) this.#until.set(client, Math.max(this.#until.get(client) ?? 0, event.at + retryAfter));
      }
    }
    this.#upTo = length;
  }
}

function key(p: { turn: number; step: number; attempt: number }): string {
  return `${p.turn}/${p.step}/${p.attempt}`;
}
