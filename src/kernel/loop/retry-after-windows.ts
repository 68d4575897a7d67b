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
    this.#fold();
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
    const events = this.#log.events;
    for (let i = this.#upTo; i < events.length; i++) {
      const e = events[i]!;
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
    this.#upTo = events.length;
  }
}

function key(p: { turn: number; step: number; attempt: number }): string {
  return `${p.turn}/${p.step}/${p.attempt}`;
}
