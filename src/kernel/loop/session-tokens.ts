/**
 * Tokens spent by a conversation's closed turns, for the per-session token
 * budget: an incremental fold of the log's `turn.closed` usage (a reopened
 * conversation remembers what it spent). A log resumed from a snapshot seeds it.
 */
import type { EventLog } from '../log/event-log.ts';
import type { LogEvent } from '../log/envelope.ts';
import { foldSeed } from './fold-seed.ts';

/** The fold as plain data at the log's length `upTo` (for a snapshot of derived state). */
export interface SessionTokensState {
  readonly upTo: number;
  readonly total: number;
}

const seeds = foldSeed<SessionTokensState>('session tokens', (state) => Number.isSafeInteger(state.total) && state.total >= 0);

/** Seeds the fold of a log resumed from a snapshot. Throws when `state` is malformed. */
export function seedSessionTokens(log: EventLog, state: SessionTokensState): void {
  seeds.put(log, state);
}

export class SessionTokens {
  readonly #log: EventLog;
  #upTo = 0;
  #total = 0;

  constructor(log: EventLog) {
    this.#log = log;
    const seed = seeds.take(log);
    if (seed) {
      this.#upTo = seed.upTo;
      this.#total = seed.total;
    }
  }

  /** Input plus output tokens of every closed turn so far. */
  total(): number {
    const log = this.#log;
    const length = log.length;
    for (let i = this.#upTo; i < length; i++) {
      const e = log.at(i)!;
      if (e.type === 'turn.closed' && !e.opaque) {
        const u = (e as Extract<LogEvent, { type: 'turn.closed' }>).payload.usage;
        // Held at 2^53 − 1, as each close's counts are: a spent budget stays spent, and a snapshot can hold the total.
        this.#total = Math.min(Number.MAX_SAFE_INTEGER, this.#total + u.inputTokens + u.outputTokens);
      }
    }
    this.#upTo = length;
    return this.#total;
  }

  state(): SessionTokensState {
    const total = this.total();
    return { upTo: this.#upTo, total };
  }
}
