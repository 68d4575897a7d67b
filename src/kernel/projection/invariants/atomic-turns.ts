/**
 * Invariant 5 (seed 004 rule 4, history is atomic): a turn that ends in failure
 * contributes nothing to the projection; its events stay in the log for audit.
 *
 * A cancelled or interrupted turn keeps the steps the model completed — each with
 * all its tool results, which the loop (or recovery) has closed as `unknown` where
 * they never settled — and a notice, so the model sees that the turn was cut short
 * and what may already have happened. Messages taken after the last completed step
 * never reached the model; they went back to the inbox and are not projected.
 */
import { interruptionText, keepsCompletedSteps, type Outcome } from '../../outcome.ts';
import type { LogEvent } from '../../log/envelope.ts';

export type TurnContribution =
  | { readonly keep: 'nothing' }
  | { readonly keep: 'all' }
  | { readonly keep: 'completed_steps'; readonly events: readonly LogEvent[]; readonly notice: string };

/** What a closed turn contributes, given its projectable events in log order. */
export function contributionOf(outcome: Outcome, turnEvents: readonly LogEvent[]): TurnContribution {
  if (!keepsCompletedSteps(outcome)) return { keep: 'nothing' };
  if (outcome.kind === 'replied') return { keep: 'all' };
  let lastAssistant = -1;
  for (let i = turnEvents.length - 1; i >= 0; i--) {
    if (turnEvents[i]!.type === 'assistant.message') {
      lastAssistant = i;
      break;
    }
  }
  if (lastAssistant < 0) return { keep: 'nothing' };
  const kept = turnEvents.filter((e, i) => i <= lastAssistant || e.type !== 'user.message');
  return { keep: 'completed_steps', events: kept, notice: noticeFor(outcome) };
}

function noticeFor(outcome: Outcome): string {
  const how =
    outcome.kind === 'cancelled'
      ? outcome.by === 'user'
        ? 'cancelled by the user'
        : outcome.by === 'parent'
          ? 'cancelled by its parent task'
          : 'stopped because the service was shutting down'
      : `interrupted because ${interruptionText(outcome.kind === 'interrupted' ? outcome.cause : undefined)}`;
  return `[This turn was ${how} before it finished. Tool results marked unknown may or may not have taken effect; check before repeating them.]`;
}
