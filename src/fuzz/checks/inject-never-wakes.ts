/**
 * Invariant 9: an inject never wakes an idle loop — a turn opens only when a
 * follow-up or steer waits — and a message taken into a turn that is cancelled
 * before the model completed a step with it goes back to the inbox, in order
 * (never lost).
 */
import type { LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../../harness/second-host.ts';
import { isWaking, replayInbox } from './inbox-replay.ts';
import { viewOf } from './log-view.ts';

export function injectNeverWakes(run: ScenarioRun): string | undefined {
  const view = viewOf(run);
  const replay = replayInbox(view.known, (e, messages) => {
    if (e.type !== 'turn.opened') return undefined;
    for (const m of messages.values()) if (m.state === 'pending' && isWaking(m)) return undefined;
    return `turn ${e.payload.turn} opened (seq ${e.seq}) with no follow-up or steer waiting: only injects (or nothing) woke the loop`;
  });
  if (replay.problem?.startsWith('turn ')) return replay.problem;
  for (const turn of view.turns) {
    const returned = turn.events.filter((e): e is Extract<LogEvent, { type: 'inbox.returned' }> => e.type === 'inbox.returned').flatMap((e) => e.payload.ids);
    let lastAssistant = -1;
    turn.events.forEach((e, i) => {
      if (e.type === 'assistant.message') lastAssistant = i;
    });
    const unseen = turn.events
      .slice(lastAssistant + 1)
      .filter((e): e is Extract<LogEvent, { type: 'user.message' }> => e.type === 'user.message')
      .map((e) => e.payload.id);
    const cancelled = turn.outcome?.kind === 'cancelled';
    // A cancelled turn whose closing write then failed ends failed{persistence}, with its messages already returned.
    const cancelRequested = turn.events.some((e) => e.type === 'cancel.requested');
    if (cancelled || (returned.length > 0 && cancelRequested && turn.outcome?.kind === 'failed' && turn.outcome.reason === 'persistence')) {
      if (JSON.stringify(returned) !== JSON.stringify(unseen)) {
        return `turn ${turn.turn} was cancelled: the messages taken after its last completed step (${unseen.join(', ') || 'none'}) must go back to the inbox in order, but ${returned.join(', ') || 'none'} did`;
      }
    } else if (returned.length > 0) {
      return `turn ${turn.turn} ended ${turn.outcome?.kind ?? 'open'} but returned ${returned.join(', ')} to the inbox`;
    }
  }
  return undefined;
}
