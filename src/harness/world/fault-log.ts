/** The faults a case injected, at the virtual time they happened, for the report's timeline. */
import type { Clock } from '../../kernel/index.ts';

export interface Fault {
  readonly at: number;
  readonly label: string;
}

export class FaultLog {
  readonly #clock: Clock;
  readonly entries: Fault[] = [];

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** The case's virtual time now. */
  now(): number {
    return this.#clock.now();
  }

  record(label: string): void {
    this.entries.push({ at: this.#clock.now(), label });
  }
}
