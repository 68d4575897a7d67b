/**
 * The inbox script played against the loop directly — the smallest host there
 * is: a message is posted to the loop's inbox; a follow-up, or a steer while no
 * turn runs, wakes it (a drain after the running one), with what was posted
 * stored first; an inject or a cancel never wakes it. It cannot crash: scenarios
 * that do run through the production host (host-target.ts).
 */
import type { AgentLoop, CancelSource, TurnResult } from '../../kernel/index.ts';
import type { InboxTarget, MessageIntent } from './inbox-driver.ts';

export class LoopTarget implements InboxTarget {
  readonly #loop: AgentLoop;
  readonly #persist: () => Promise<void>;
  readonly #closed: (result: TurnResult) => void;
  #drains: Promise<void> = Promise.resolve();

  /** `closed` is told each turn's result, in order. */
  constructor(loop: AgentLoop, persist: () => Promise<void>, closed: (result: TurnResult) => void) {
    this.#loop = loop;
    this.#persist = persist;
    this.#closed = closed;
  }

  send(text: string, intent: MessageIntent): void {
    this.#loop.send(text, { intent });
    if (intent === 'follow_up' || (intent === 'steer' && !this.#loop.busy)) this.#wake(); // a running turn takes a steer at its next step
  }

  cancel(by: CancelSource): void {
    this.#loop.cancel(by, `scenario: cancel by ${by}`);
  }

  crash(): void {
    throw new Error('the loop driven directly cannot crash: a scenario with crash runs through the production host');
  }

  reopen(): Promise<void> {
    return Promise.reject(new Error('the loop driven directly cannot reopen: a scenario with reopen runs through the production host'));
  }

  /** Every drain woken so far has finished — including drains woken (by a timed or triggered entry) while an earlier one was awaited. */
  async settled(): Promise<void> {
    for (let awaited = this.#drains; ; awaited = this.#drains) {
      await awaited;
      if (awaited === this.#drains) return;
    }
  }

  /** Stores what was posted and no turn took (an inject at the end). */
  async finish(): Promise<void> {
    await this.#persist().catch(() => undefined);
  }

  /** A drain after the running one: the message is stored before the turn starts. */
  #wake(): void {
    this.#drains = this.#drains.then(async () => {
      await this.#persist().catch(() => undefined);
      for (const result of await this.#loop.drain()) this.#closed(result);
    });
  }
}
