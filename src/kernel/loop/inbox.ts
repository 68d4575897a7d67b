/**
 * Inbox rules (seed 000 §6). Input is posted, not called: it waits in the inbox
 * (as `inbox.received` events) until the loop takes it.
 *
 * | intent    | taken at                      | wakes an idle loop |
 * |-----------|-------------------------------|--------------------|
 * | follow_up | the start of the next turn    | yes                |
 * | steer     | the next step of this turn    | yes                |
 * | inject    | the next step of this turn    | no                 |
 *
 * A turn starts with the first waking message and takes, in arrival order,
 * everything before the next follow-up (each follow-up is its own turn).
 *
 * A message that says nothing — empty, or only whitespace — is taken and
 * recorded as dropped: it is never sent (a provider may refuse a text block of
 * only whitespace), and a turn with nothing else is `nothing_to_do`.
 */
import type { PendingMessage } from '../log/positions.ts';

/** Whether a message's text says nothing: empty, or only whitespace. */
export function saysNothing(text: string): boolean {
  return text.trim().length === 0;
}

/** Does the inbox hold work that may start a turn? Inject alone never does. */
export function hasWakingWork(pending: readonly PendingMessage[]): boolean {
  return pending.some((m) => m.intent !== 'inject');
}

/** Messages a new turn takes: up to and including its first follow-up, never a second one. */
export function takeForTurnStart(pending: readonly PendingMessage[]): PendingMessage[] {
  const taken: PendingMessage[] = [];
  let followUps = 0;
  for (const message of pending) {
    if (message.intent === 'follow_up') {
      if (followUps === 1) break;
      followUps++;
    }
    taken.push(message);
  }
  return hasWakingWork(taken) ? taken : [];
}

/** Messages the next step of a running turn takes: steers and injects, in order. */
export function takeForNextStep(pending: readonly PendingMessage[]): PendingMessage[] {
  return pending.filter((m) => m.intent !== 'follow_up');
}
