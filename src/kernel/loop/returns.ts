/**
 * Which inbox messages a turn took go back to the inbox when it ends (invariant
 * 9: a taken message is never lost). The model must read each message once in a
 * history that keeps it.
 *
 * - A turn cut short (cancelled, or interrupted by a crash) keeps the steps the
 *   model completed; every message taken after the last one never reached the
 *   model in a kept step, so it goes back, whoever wrote it.
 * - A message the loop wrote itself (a side-effect notice, source `loop:…`) has
 *   nobody to send it again. It goes back from any turn that ends before the
 *   model completed a step with it, and from any turn whose steps are not kept
 *   (a failure, a full conversation, a refusal of the input): the model read it
 *   there, but that history is gone.
 * - A user's message in a turn that failed, was rejected or had nothing to do is
 *   not returned: the turn answered it (with its outcome).
 */
import { keepsCompletedSteps, type Outcome } from '../outcome.ts';

/** The source prefix of messages the loop writes itself. */
export const LOOP_SOURCE = 'loop:';

export function isLoopWritten(source: string): boolean {
  return source.startsWith(LOOP_SOURCE);
}

export interface TakenMessage {
  readonly id: string;
  readonly source: string;
  /** The model completed a step after it was taken (it is in a step's request). */
  readonly seen: boolean;
}

/** The ids to return, in the order they were taken. */
export function messagesToReturn(outcome: Outcome, taken: readonly TakenMessage[]): string[] {
  const cutShort = keepsCompletedSteps(outcome) && outcome.kind !== 'replied';
  const dropped = !keepsCompletedSteps(outcome);
  return taken.filter((m) => (!m.seen && (cutShort || isLoopWritten(m.source))) || (dropped && isLoopWritten(m.source))).map((m) => m.id);
}
