/** The faults a case injected, at the virtual time they happened, for the report's timeline. */
import type { Clock } from '../../kernel/index.ts';

export interface Fault {
  readonly at: number;
  readonly label: string;
  /** Its place among the case's happenings (faults and appended events), in the order they happened. */
  readonly order?: number;
}

export class FaultLog {
  readonly #clock: Clock;
  readonly entries: Fault[] = [];
  /** `eventOrder.get(seq)`: the place, among the case's happenings, of the append that put event `seq` in the final log. */
  readonly eventOrder = new Map<number, number>();
  #next = 0;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** The case's virtual time now. */
  now(): number {
    return this.#clock.now();
  }

  record(label: string): void {
    this.entries.push({ at: this.#clock.now(), label, order: this.#next++ });
  }

  /** A place among the case's happenings, for a happening recorded elsewhere (a peer's tool body starting, a cancel reaching its turn). */
  place(): number {
    return this.#next++;
  }

  /**
   * The conversation's log appended event `seq`. A seq appended again (after a
   * crash lost it, a reopened host writes that seq anew) takes its later place:
   * the final log holds the later event.
   */
  appended(seq: number): void {
    this.eventOrder.set(seq, this.#next++);
  }
}
