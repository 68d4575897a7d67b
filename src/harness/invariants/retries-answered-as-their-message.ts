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
 * Requests are judged in the order they were answered: a request answered
 * before its message was stored anywhere is not a retry of the one that stored it.
 *
 * Posts are one message only when their id, text and intent all match (the host
 * compares the text as it stores it, redacted). A post that reuses the id of a
 * stored message with another text or intent is not a retry: it is answered 422
 * and nothing is stored — neither run as a new message nor answered with the
 * stored message's turn (README, "Retrying safely"). A client that reuses an id
 * for another instruction must learn it was not carried out. (A 5xx with nothing
 * stored and no turn is accepted there too: the host could not read the
 * conversation to compare.)
 *
 * After a crash that left the store unreadable (a record lost: a seq gap), a
 * retry answered 5xx with no turn and nothing stored is what the host must do:
 * it cannot read the turn that answered the message.
 *
 * Not judged: a request whose own client went away (499) or whose process died
 * (no answer), a message a cancelled turn gave back to the inbox (a later turn
 * takes it, and answers the requests still waiting), and a first answer whose
 * turn failed{persistence}: the store holds none of that turn, so the stored
 * message is taken again by a later turn, which answers the retry.
 */
import { createRedactor } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import type { HostPost } from '../world/host-target.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { oneMessage } from './support/one-message.ts';

export const retriesAnsweredAsTheirMessage = defineInvariant({
  id: 'retries-answered-as-their-message',
  title:
    'a client’s retry of a message (the same message id, text and intent) is answered with the turn that took it, as the first answer was; the same id with another text or intent is refused 422, nothing stored',
  appliesTo: loopgateOnly('message ids are the production host’s', (run) =>
    (run.posts ?? []).some((p, i) => p.messageId !== undefined && run.posts!.slice(0, i).some((q) => q.messageId === p.messageId))
      ? undefined
      : 'no message is posted twice with one message id',
  ),
  check: (run) => answeredAlike(run),
});

function answeredAlike(run: ScenarioRun): string | undefined {
  const posts = run.posts ?? [];
  const redact = createRedactor({ secrets: run.secrets });
  const first = new Map<string, { index: number; status: number; turn: number; outcome: string }>();
  // The message an id names: the first post of it the host said it stored.
  const owner = new Map<string, { index: number; post: HostPost }>();
  // In the order the requests were answered (the script's order where answered at once): a request answered before its
  // message was stored anywhere cannot report the turn that later took it (outside probe 13: two hosts, a steer sent
  // to both at once; the host whose store failed answered 503 at once, the other stored it seconds later, when the
  // conversation's lock came free, and its turn failed 422 — the 503, answered when the store held 3 records and the
  // 422 when it held 15, was judged a "retry" of the 422).
  // Within one instant of virtual time, what the store held then orders them (it only grows).
  const when = (p: HostPost) => [p.answered?.at ?? Infinity, p.answered?.stored ?? Infinity] as const;
  const answeredOrder = [...posts.entries()].sort(([a, p], [b, q]) => when(p)[0] - when(q)[0] || when(p)[1] - when(q)[1] || a - b);
  for (const [i, post] of answeredOrder) {
    const envelope = post.envelope;
    if (post.messageId === undefined || !envelope || envelope.status === 499) continue;
    const named = owner.get(post.messageId);
    if (named !== undefined && !oneMessage(named.post, post, redact)) {
      const problem = refusedAsAnotherMessage(run, i, post, named, redact);
      if (problem) return problem;
      continue;
    }
    if (named === undefined && envelope.delivery !== undefined) owner.set(post.messageId, { index: i, post });
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
    // A store no process could read back after a crash (run.unreadable: a record lost, a seq gap): the host cannot read
    // the turn that answered the message, and must refuse the conversation — 5xx, no turn, nothing stored — not
    // answer from what it cannot read (outside probe 15's agent, fuzz seed 3: the crash lost the message's own record).
    if (!last && envelope.status >= 500 && envelope.delivery === undefined && unreadable(run)) continue;
    const told = last
      ? `turn ${last.turn} ${last.outcome}, status ${envelope.status}`
      : `status ${envelope.status} with no turn${envelope.error ? ` (${envelope.error})` : ''}`;
    if (!last || last.turn !== answered.turn || envelope.status !== answered.status)
      return `message ${i + 1} retries message ${answered.index + 1} (id ${post.messageId}), answered with turn ${answered.turn} ${answered.outcome}, status ${answered.status}; the retry was answered ${told}`;
  }
  return undefined;
}

/**
 * Did a crash leave the conversation's store unreadable? The reopened host's sweep
 * says so when it had a turn to recover (run.unreadable); with none to recover, the
 * store itself shows it: its records no longer run gapless from seq 0.
 */
function unreadable(run: ScenarioRun): boolean {
  if (run.unreadable !== undefined) return true;
  const stored = run.store.peek(run.conversation);
  return stored.some((record, i) => record.seq !== i);
}

/** A post reusing the id of stored message `named` with another text or intent: answered 422, no turn, nothing stored. */
function refusedAsAnotherMessage(
  run: ScenarioRun,
  i: number,
  post: HostPost,
  named: { index: number; post: HostPost },
  redact: (text: string) => string,
): string | undefined {
  const envelope = post.envelope!;
  const differ = [
    post.intent !== named.post.intent ? `intent ${post.intent}, not ${named.post.intent}` : undefined,
    redact(post.text) !== redact(named.post.text) ? 'another text' : undefined,
  ]
    .filter(Boolean)
    .join(', ');
  const where = `message ${i + 1} reuses the id ${post.messageId} of message ${named.index + 1} with ${differ}`;
  const last = envelope.turns.at(-1);
  if (last !== undefined)
    return `${where}, so it is another message (422, nothing stored), but it was answered status ${envelope.status} with turn ${last.turn} ${last.outcome}: the client is told an instruction it never gave was carried out`;
  if (envelope.delivery !== undefined)
    return `${where}, so it is another message (422, nothing stored), but it was answered status ${envelope.status}, delivery ${envelope.delivery}: stored`;
  if (envelope.status !== 422 && envelope.status < 500)
    return `${where}, so it is another message and must be refused 422, nothing stored; it was answered status ${envelope.status}${envelope.error ? ` (${envelope.error})` : ''}`;
  const kept = `${named.post.intent}: ${redact(named.post.text)}`;
  for (const record of run.store.peek(run.conversation)) {
    const p = record.payload as { id?: unknown; intent?: unknown; text?: unknown } | null;
    if (record.type !== 'inbox.received' || !p || p.id !== post.messageId) continue;
    if (`${String(p.intent)}: ${String(p.text)}` !== kept)
      return `${where}, answered ${envelope.status}, yet the store holds message ${post.messageId} as ${String(p.intent)} "${String(p.text).slice(0, 60)}": nothing may be stored for it`;
  }
  return undefined;
}
