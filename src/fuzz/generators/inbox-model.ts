/**
 * A small reference model of the inbox, for the model-based inbox generator
 * (fc.commands) and the inbox property.
 *
 * The model knows the rules of seed 000 §6 as they can be predicted from the
 * outside: a follow-up or a steer wakes an idle loop, an inject never does, a
 * cancel when nothing runs is ignored; every message posted is received once;
 * each follow-up is its own turn. It decides which commands make sense next
 * (its `check`s) and what a run of the entries must show (`expectedMessages`).
 */
import type { InboxEntry } from '../../harness/scenario/schema.ts';
import type { MessageIntent } from '../../harness/invariants/support/inbox-reference.ts';

export type { MessageIntent };

export class InboxModel {
  readonly entries: InboxEntry[] = [];
  /** Waking messages (follow-ups and steers) posted so far. */
  waking = 0;
  /** Messages posted so far (say, steer or inject): what a disconnect can name. */
  posted = 0;
  cancels = 0;
  #texts = 0;

  /** A text unique within the scenario, so a message can be traced through the log. */
  text(intent: MessageIntent): string {
    this.#texts++;
    switch (intent) {
      case 'follow_up':
        // Long enough that a short summary of closed turns really shrinks the history (compaction must be reachable).
        return `Customer message ${this.#texts}: my order ORD-1001 arrived broken, the box was crushed and it does not turn on. What can you do?`;
      case 'steer':
        return `Correction ${this.#texts}: only the first order`;
      case 'inject':
        return `Context ${this.#texts}: the customer is a VIP`;
    }
  }

  add(entry: InboxEntry): void {
    this.entries.push(entry);
    if (entry.say !== undefined || entry.steer !== undefined) this.waking++;
    if (entry.say !== undefined || entry.steer !== undefined || entry.inject !== undefined) this.posted++;
    if (entry.cancel !== undefined) this.cancels++;
  }
}
