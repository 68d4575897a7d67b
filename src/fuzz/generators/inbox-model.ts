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
        // Not of any one trade: these are the messages a team's own agent is fuzzed with (outside probes 61, 62).
        return `Incoming message ${this.#texts}: the last task went wrong, the result was cut short and it does not look right. What can you do?`;
      case 'steer':
        return `Correction ${this.#texts}: only the first items`;
      case 'inject':
        return `Context ${this.#texts}: the user is on a plan`;
    }
  }

  add(entry: InboxEntry): void {
    this.entries.push(entry);
    if (entry.say !== undefined || entry.steer !== undefined) this.waking++;
    if (entry.say !== undefined || entry.steer !== undefined || entry.inject !== undefined) this.posted++;
    if (entry.cancel !== undefined) this.cancels++;
  }
}
