/**
 * A client's retry of a message — a post giving a message id already posted
 * (`handle`'s `messageId`, an HTTP Idempotency-Key) — is answered with what
 * became of that message: once a request for it was answered with the turn
 * that took it, every later request for it reports that same turn, with the
 * same status. A retry refused as a duplicate ("could not post"), run as a new
 * turn, or told another outcome leaves a client that lost its first answer (a
 * crash, a timeout) unable to learn what happened: it retries again, or gives
 * up on a message that was answered.
 *
 * Not judged: a request whose own client went away (499) or whose process died
 * (no answer), a message a cancelled turn gave back to the inbox (a later turn
 * takes it, and answers the requests still waiting), and a first answer whose
 * turn failed{persistence}: the store holds none of that turn, so the stored
 * message is taken again by a later turn, which answers the retry.
 */
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';

export const retriesAnsweredAsTheirMessage = defineInvariant({
  id: 'retries-answered-as-their-message',
  title: 'a client’s retry of a message (the same message id) is answered with the turn that took it, as the first answer was',
  appliesTo: loopgateOnly('message ids are the production host’s', (run) =>
    (run.posts ?? []).some((p, i) => p.messageId !== undefined && run.posts!.slice(0, i).some((q) => q.messageId === p.messageId))
      ? undefined
      : 'no message is posted twice with one message id',
  ),
  check: (run) => answeredAlike(run),
});

function answeredAlike(run: ScenarioRun): string | undefined {
  const posts = run.posts ?? [];
  const first = new Map<string, { index: number; status: number; turn: number; outcome: string }>();
  for (const [i, post] of posts.entries()) {
    const envelope = post.envelope;
    if (post.messageId === undefined || !envelope || envelope.status === 499) continue;
    const last = envelope.turns.at(-1);
    const answered = first.get(post.messageId);
    if (envelope.turns.some((t) => t.returnedToInbox.includes(post.messageId!))) {
      first.delete(post.messageId); // given back: the turn that takes it later answers anew
      continue;
    }
    if (answered === undefined) {
      // A turn that failed{persistence} is in no stored record: the message, stored before it, is taken again by a later turn.
      if (last !== undefined && envelope.delivery !== undefined && last.outcome !== 'failed{persistence}')
        first.set(post.messageId, { index: i, status: envelope.status, turn: last.turn, outcome: last.outcome });
      continue;
    }
    const told = last
      ? `turn ${last.turn} ${last.outcome}, status ${envelope.status}`
      : `status ${envelope.status} with no turn${envelope.error ? ` (${envelope.error})` : ''}`;
    if (!last || last.turn !== answered.turn || envelope.status !== answered.status)
      return `message ${i + 1} retries message ${answered.index + 1} (id ${post.messageId}), answered with turn ${answered.turn} ${answered.outcome}, status ${answered.status}; the retry was answered ${told}`;
  }
  return undefined;
}
