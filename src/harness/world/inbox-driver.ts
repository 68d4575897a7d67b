/**
 * Drives the scenario's inbox script like a client of a host would: a
 * follow-up or a steer wakes the loop (a drain after the running one), an
 * inject or a cancel never does. Entries without `at` wait until the loop is
 * idle; the others fire at their trigger — the n-th model request, a tool's
 * first start, a virtual time.
 */
import type { Clock } from '../../kernel/index.ts';
import type { InboxEntry } from '../scenario/schema.ts';
import type { FaultLog } from './fault-log.ts';

/** What the driver talks to: the loop directly, or a host around it. */
export interface InboxTarget {
  send(text: string, intent: 'follow_up' | 'steer' | 'inject'): void;
  cancel(by: NonNullable<InboxEntry['cancel']>): void;
  /** Is a turn (a drain) running? A steer then joins it instead of waking the loop. */
  readonly busy: boolean;
  /** Runs the loop until its inbox holds no waking work. */
  drain(): Promise<void>;
  /** Makes what was posted durable before a turn takes it (best effort). */
  flush(): Promise<void>;
}

export class InboxDriver {
  readonly #target: InboxTarget;
  readonly #clock: Clock;
  readonly #faults: FaultLog;
  readonly #byRequest = new Map<number, InboxEntry[]>();
  readonly #byToolStart = new Map<string, InboxEntry[]>();
  readonly #timed: InboxEntry[] = [];
  readonly #untimed: InboxEntry[] = [];
  #drains: Promise<void> = Promise.resolve();

  constructor(entries: readonly InboxEntry[], target: InboxTarget, clock: Clock, faults: FaultLog) {
    this.#target = target;
    this.#clock = clock;
    this.#faults = faults;
    for (const entry of entries) {
      if (!entry.at) this.#untimed.push(entry);
      else if (entry.at.request !== undefined) push(this.#byRequest, entry.at.request, entry);
      else if (entry.at.toolStart !== undefined) push(this.#byToolStart, entry.at.toolStart, entry);
      else this.#timed.push(entry);
    }
  }

  /** The n-th model request (1-based) went out. */
  onRequest(n: number): void {
    for (const entry of this.#byRequest.get(n) ?? []) void this.#perform(entry);
  }

  /** A tool's body started for the first time. */
  onToolStart(name: string): void {
    for (const entry of this.#byToolStart.get(name) ?? []) void this.#perform(entry);
  }

  /** Plays the script: untimed entries one at a time, each once the loop is idle; timed ones at their time. */
  async drive(): Promise<void> {
    const timers = this.#timed.map((entry) => this.#clock.sleep(entry.at!.time!).then(() => void this.#perform(entry)));
    for (const entry of this.#untimed) {
      await this.#perform(entry);
      await this.#idle(); // the next entry waits until the loop is idle
    }
    await Promise.all(timers);
    await this.#idle();
  }

  #perform(entry: InboxEntry): Promise<void> | undefined {
    const target = this.#target;
    if (entry.say !== undefined) {
      target.send(entry.say, 'follow_up');
      return this.#wake();
    }
    if (entry.steer !== undefined) {
      target.send(entry.steer, 'steer');
      return target.busy ? undefined : this.#wake(); // a running turn takes it at its next step
    }
    if (entry.inject !== undefined) {
      target.send(entry.inject, 'inject');
      return undefined;
    }
    if (entry.cancel !== undefined) {
      this.#faults.record(`cancel by ${entry.cancel}`);
      target.cancel(entry.cancel);
    }
    return undefined;
  }

  /** A drain after the running one: the message is stored before the turn starts. */
  #wake(): Promise<void> {
    this.#drains = this.#drains.then(async () => {
      await this.#target.flush().catch(() => undefined);
      await this.#target.drain();
    });
    return this.#drains;
  }

  /** Every drain woken so far has finished — including drains woken (by a timed or triggered entry) while an earlier one was awaited. */
  async #idle(): Promise<void> {
    for (let awaited = this.#drains; ; awaited = this.#drains) {
      await awaited;
      if (awaited === this.#drains) return;
    }
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
