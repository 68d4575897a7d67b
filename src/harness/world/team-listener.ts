/**
 * A team's listener on the conversation's log (`listener: { throwsOn }`): the
 * production host's observer hands a team each log it opens (`observer.opened`),
 * and a team's own loop is its `EventLog` — either way a team may `subscribe` to
 * it (metrics, an audit feed), and one with a bug throws. This one throws at
 * every event of the types the scenario names.
 *
 * The log's contract (event-log.ts): a listener that throws does not undo the
 * append nor escape it, the other listeners still run, and the failure is
 * recorded right after as a `log.listener_failed` naming the event and the error
 * — but not for a `log.listener_failed` itself (a listener that always throws
 * must not make the log grow without end). The listener records what it threw
 * at and on which log, for `listener-failures-recorded` to judge.
 */
import type { EventLog } from '../../kernel/index.ts';
import type { FaultLog } from './fault-log.ts';

/** One throw of the team's listener: at which event (by seq and type), and what it threw. */
export interface ListenerThrow {
  readonly seq: number;
  readonly type: string;
  /** The error as the log records it (`name: message`). */
  readonly error: string;
  /**
   * The log it was thrown on. After a refused write the production host drops its
   * in-memory log and opens the conversation again from the store, so a throw on
   * the dropped log is judged on that log, not on the stored one.
   */
  readonly on: EventLog;
}

export class TeamListener {
  readonly #types: ReadonlySet<string>;
  readonly #faults: FaultLog;
  readonly #thrown: ListenerThrow[] = [];

  constructor(throwsOn: readonly string[], faults: FaultLog) {
    this.#types = new Set(throwsOn);
    this.#faults = faults;
  }

  /** Listens to `log` (a log the case opened: the loop's, or one a production host opened). Returns the unsubscribe. */
  attach(log: EventLog): () => void {
    return log.subscribe((event) => {
      if (!this.#types.has(event.type)) return;
      const message = `team listener failed at ${event.type} ${event.seq}`;
      this.#thrown.push({ seq: event.seq, type: event.type, error: `Error: ${message}`, on: log });
      this.#faults.record(`a team's log listener throws at ${event.type} (seq ${event.seq})`);
      throw new Error(message);
    });
  }

  get thrown(): readonly ListenerThrow[] {
    return this.#thrown;
  }
}
