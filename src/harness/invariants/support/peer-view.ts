/** What the peer-neutral checks read of a PeerRun: the requests of each turn, and who ran what. */
import { outcomeLabel, type Message, type Outcome } from '../../../kernel/index.ts';
import { finalHistory, type PeerRun } from '../../loop-port/peer-run.ts';
import type { SentRequest } from '../../world/recording-model.ts';

/** The requests turn `turn` sent, in order. */
export function requestsOfTurn(run: PeerRun, turn: number): SentRequest[] {
  return run.requests.filter((_, i) => run.requestTurns[i] === turn);
}

/** The persisted history after turn `turn` (when the next began, or at the end). */
export function historyAfter(run: PeerRun, turn: number): readonly Message[] {
  return run.histories[turn + 1] ?? finalHistory(run);
}

/** Did the model, in these messages, see a result for this call? */
export function carriesResult(messages: readonly Message[], callId: string): boolean {
  return messages.some((m) => m.content.some((b) => b.type === 'tool_result' && b.callId === callId));
}

/** A turn that keeps nothing of itself in a history: every outcome but replied and cancelled (which keep completed steps). */
export function addsNothing(outcome: Outcome): boolean {
  return outcome.kind !== 'replied' && outcome.kind !== 'cancelled' && outcome.kind !== 'interrupted';
}

export function labelOf(outcome: Outcome): string {
  return outcomeLabel(outcome);
}
