/**
 * The production host answers a request only with what the store already holds
 * (DESIGN.md, Storage: a durability barrier before a reply is returned). When a
 * client gets its answer, a process crash one instant later must not take back
 * what it was told:
 *
 * - an answer that says the message was stored (`delivery` `turn`, `joined` or
 *   `queued`: 202, or a 503 whose error says the next turn takes it) finds the
 *   message's `inbox.received` in the store;
 * - an answer that reports a turn (`turns`) finds that turn's `turn.closed` in
 *   the store — except a turn that failed `persistence`, whose close the store
 *   refused (crash recovery closes it instead) — and the answer comes when that
 *   turn closes, not after later turns of the same drain (virtual time).
 *
 * Checked against what the case's store held for the conversation at the moment
 * each answer reached the client (host-target.ts records it). And before any of
 * that, a message is stored before the turn it starts opens.
 */
import { createRedactor, type EventRecord } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { oneMessage } from './support/one-message.ts';

export const hostAnswersOnlyWhatIsStored = defineInvariant({
  id: 'host-answers-only-what-is-stored',
  title: 'the production host answers a request only after the message and the turn it reports are stored',
  appliesTo: loopgateOnly('what a peer stores, and when, is not loopgate’s event log'),
  check: (run) => answersOnlyWhatIsStored(run) ?? storedBeforeItsTurn(run),
});

/**
 * And a message is stored before the turn it starts opens (DESIGN.md, Storage: never lost): a crash in that
 * turn must not take back a message the client was never told was lost. Read from what the store held when
 * each `turn.opened` was appended.
 */
function storedBeforeItsTurn(run: ScenarioRun): string | undefined {
  if (!run.posts) return undefined;
  const received = new Map<string, number>();
  for (const e of run.log.events) {
    if (e.type === 'inbox.received') received.set((e.payload as { id: string }).id, e.seq);
    if (e.type !== 'turn.opened') continue;
    const { turn, trigger } = e.payload as { turn: number; trigger?: string };
    const at = trigger === undefined ? undefined : received.get(trigger);
    const held = run.durableBefore[e.seq];
    if (at === undefined || held === undefined || held > at) continue;
    return `turn ${turn} opened (seq ${e.seq}) on message ${trigger} (seq ${at}) while the store held ${held} record(s): the message was not stored before its turn started`;
  }
  return undefined;
}

function answersOnlyWhatIsStored(run: ScenarioRun): string | undefined {
  if (!run.posts) return undefined;
  const records = run.store.peek(run.conversation);
  const redact = createRedactor({ secrets: run.secrets });
  for (const [i, post] of run.posts.entries()) {
    const envelope = post.envelope;
    if (!envelope || !post.answered) continue;
    const stored = records.slice(0, post.answered.stored);
    const where = `the answer to message ${i + 1} (${post.intent} "${post.text.slice(0, 40)}", status ${envelope.status})`;
    if (envelope.delivery !== undefined) {
      const id = envelope.messageId;
      if (!stored.some((r) => r.type === 'inbox.received' && idOf(r) === id))
        return `${where} says the message was stored (delivery ${envelope.delivery}), but the store held no inbox.received of message ${String(id)} when it was answered (${post.answered.stored} record(s))`;
    }
    for (const summary of envelope.turns) {
      if (summary.outcome === 'failed{persistence}') continue;
      const close = stored.find((r) => r.type === 'turn.closed' && turnOf(r) === summary.turn);
      if (!close)
        return `${where} reports turn ${summary.turn} ${summary.outcome}, but the store held no close of that turn when it was answered (${post.answered.stored} record(s))`;
      // Answered as the turn closes, not when the drain that ran it ends (a later turn may take minutes) —
      // or, for a request sent after that (a client's retry of a message a turn already answered), as it is sent.
      // With several hosts a retry is looked up under the conversation's lock, which another host's turn may hold:
      // it is answered when that turn ends, as any message sent to a host that does not hold the lock is.
      // "Closes" is when the close is stored (a slow write lands after the loop appended it), as the answer must wait for that.
      const closedAt = (typeof close.seq === 'number' ? run.storedAt?.(close.seq) : undefined) ?? close.at;
      const due = Math.max(closedAt, post.sentAt);
      const retry = run.posts.slice(0, i).some((p) => oneMessage(p, post, redact));
      if (summary === envelope.turns.at(-1) && post.answered.at > due && !(retry && (run.scenario.hosts ?? 1) > 1))
        return `${where} was answered at ${post.answered.at} ms, but turn ${summary.turn}, which it reports, closed at ${closedAt} ms${post.sentAt > closedAt ? ` and the request was sent at ${post.sentAt} ms` : ''}: the client waited for later work`;
    }
  }
  return undefined;
}

function idOf(record: EventRecord): unknown {
  return (record.payload as { id?: unknown } | null)?.id;
}

function turnOf(record: EventRecord): unknown {
  return (record.payload as { turn?: unknown } | null)?.turn;
}
