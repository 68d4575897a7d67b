/**
 * Two conversations on one host stay apart (a scenario's `bystander`: a second
 * conversation on the same host and store, run at the same time as the case's).
 * What a client sends to one conversation — a message, its message id, a cancel —
 * and what the host does for it never reaches the other:
 *
 * - each conversation's store holds no message only the other's clients posted:
 *   no client message (`inbox.received` from a user) with a text only the other
 *   conversation's clients sent, or an id only they gave;
 * - each answer the host gives a client names the conversation the client
 *   posted to, with the message id that client gave (or one of the host's, never
 *   one only the other conversation's clients gave), and every turn it reports
 *   closed in that conversation's store, with that reply;
 * - every request each conversation's model client was sent carries only user
 *   messages that conversation's clients posted;
 * - a conversation whose clients never cancelled nor went away has no turn
 *   cancelled, and a message refused because its id names another message (422)
 *   has an id its own clients gave to another message.
 *
 * A cancel of one conversation reaching the other, or an agent built once for
 * both, shows in the other conversation's own checks (its outcomes, its
 * expectations, the host's per-conversation agent check); this one catches what
 * crosses between them.
 */
import { createRedactor, type EventRecord, type Message } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { isBystander } from '../world/case-conversation.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';

export const conversationsKeptApart = defineInvariant({
  id: 'conversations-kept-apart',
  title: 'two conversations on one host stay apart: no message, message id, answer or request of one reaches the other',
  appliesTo: loopgateOnly('a bystander runs on loopgate’s own hosts', (run) =>
    run.bystander
      ? undefined
      : !isBystander(run.conversation)
        ? 'the case runs one conversation (no bystander)'
        : 'judged on the case’s own run, which holds both conversations',
  ),
  check: (run) => keptApart(run, run.bystander!) ?? keptApart(run.bystander!, run),
});

/** What the clients of one conversation sent: texts, the message ids they gave (with each id's messages), and whether they ever cancelled or went away. */
function sent(run: ScenarioRun): { texts: Set<string>; ids: Set<string>; byId: Map<string, Set<string>>; stopped: boolean } {
  const texts = new Set<string>();
  const ids = new Set<string>();
  const byId = new Map<string, Set<string>>();
  let stopped = false;
  for (const entry of run.scenario.inbox) {
    const text = entry.say ?? entry.steer ?? entry.inject;
    const intent = entry.say !== undefined ? 'follow_up' : entry.steer !== undefined ? 'steer' : 'inject';
    if (text !== undefined) texts.add(text);
    if (entry.messageId !== undefined) {
      ids.add(entry.messageId);
      const messages = byId.get(entry.messageId) ?? new Set<string>();
      messages.add(`${intent}:${text}`);
      byId.set(entry.messageId, messages);
    }
    if (entry.cancel !== undefined || entry.disconnect !== undefined) stopped = true;
  }
  return { texts, ids, byId, stopped };
}

function keptApart(run: ScenarioRun, other: ScenarioRun): string | undefined {
  const own = sent(run);
  const theirs = sent(other);
  const foreignId = (id: string | undefined): boolean => id !== undefined && theirs.ids.has(id) && !own.ids.has(id);
  const name = `conversation "${run.conversation}"`;
  const records = run.store.peek(run.conversation);
  // A secret the host gained on a reopen was stored before as plain text: a process started after it answers with it
  // redacted, as its redactor redacts it (host-answers-follow-outcomes judges that nothing it answers holds one).
  const gained = run.scenario.secretsOnReopen ?? [];
  const gainedRedactor = gained.length > 0 ? createRedactor({ secrets: gained, patterns: [] }) : undefined;
  const hideGained = (text: string): string => (gainedRedactor ? gainedRedactor(text) : text);

  for (const r of records) {
    if (r.type !== 'inbox.received') continue;
    const { id, text, source } = r.payload as { id?: string; text?: string; source?: string };
    if (source !== undefined && source !== 'user') continue;
    // (A text of its own may be stored redacted: only a text the other's clients sent, and its own did not, is judged.)
    if (text !== undefined && theirs.texts.has(text) && !own.texts.has(text))
      return `${name} stores a client message (seq ${r.seq}, "${clip(text)}") that only conversation "${other.conversation}"'s clients sent`;
    if (foreignId(id)) return `${name} stores a message (seq ${r.seq}) under the id "${id}", which only conversation "${other.conversation}"'s clients gave`;
  }

  if (!own.stopped)
    for (const result of run.results)
      if (result.outcome.kind === 'cancelled')
        return `${name}'s turn ${result.turn} was cancelled (${result.outcome.by}), though none of its clients cancelled or went away`;

  for (const [i, post] of (run.posts ?? []).entries()) {
    const envelope = post.envelope;
    if (!envelope) continue;
    const where = `the answer to ${name}'s message ${i + 1} (${post.intent} "${clip(post.text)}", status ${envelope.status})`;
    if (
      envelope.status === 422 &&
      post.messageId !== undefined &&
      (own.byId.get(post.messageId)?.size ?? 0) < 2 &&
      /names another message/.test(envelope.error ?? '')
    )
      return `${where} refuses its id "${post.messageId}" as another message's, though no other message of ${name} was given that id`;
    if (envelope.conversationId !== run.conversation) return `${where} names conversation "${envelope.conversationId}"`;
    if (envelope.messageId !== undefined && post.messageId !== undefined && envelope.messageId !== post.messageId)
      return `${where} is about message "${envelope.messageId}", not the id "${post.messageId}" its client gave`;
    if (foreignId(envelope.messageId))
      return `${where} is about message "${envelope.messageId}", an id only conversation "${other.conversation}"'s clients gave`;
    for (const turn of envelope.turns) {
      const closed = closedTurn(records, turn.turn);
      if (!closed) return `${where} reports turn ${turn.turn}, which ${name}'s store never closed`;
      if (turn.reply !== undefined && !repliesOf(records, turn.turn).some((reply) => reply === turn.reply || hideGained(reply) === turn.reply))
        return `${where} reports turn ${turn.turn} with the reply "${clip(turn.reply)}", which ${name}'s turn ${turn.turn} never gave`;
    }
  }

  for (const [i, request] of run.requests.entries()) {
    for (const text of request.messages.flatMap(userTexts)) {
      if (own.texts.has(text) || !theirs.texts.has(text)) continue;
      return `${name}'s model request ${i + 1} carries the user message "${clip(text)}", which only conversation "${other.conversation}"'s clients sent`;
    }
  }
  return undefined;
}

function closedTurn(records: readonly EventRecord[], turn: number): EventRecord | undefined {
  return records.find((r) => r.type === 'turn.closed' && (r.payload as { turn?: number }).turn === turn);
}

/** The text of each assistant message turn `turn` wrote (its reply is one of them: its last with text). */
function repliesOf(records: readonly EventRecord[], turn: number): string[] {
  const out: string[] = [];
  for (const r of records) {
    if (r.type !== 'assistant.message') continue;
    const payload = r.payload as { turn?: number; content?: readonly { type?: string; text?: string }[] };
    if (payload.turn !== turn || !Array.isArray(payload.content)) continue;
    out.push(payload.content.flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : [])).join(''));
  }
  return out;
}

/** The texts of a user message's text blocks (a tool result is none). */
function userTexts(message: Message): string[] {
  if (message.role !== 'user') return [];
  return message.content.flatMap((b) => (b.type === 'text' ? [b.text] : []));
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
