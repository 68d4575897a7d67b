/**
 * Invariant 9 from outside a loop (follow-ups only: peers have no steer or
 * inject): each turn's first request carries the message the turn was for —
 * once, or once more than the earlier messages it is one of (a customer who asks
 * the same thing twice: outside probe 49, HIGH-1) — and no request carries a
 * message more often than it was sent; and the
 * message of a turn cut short by a cancel is not lost — the next turn's first
 * request, or the history at the end, still holds it.
 *
 * A loop that keeps the case's secrets out (invariant 15) sends a message
 * redacted. Each message is looked for as it was sent first; where it is not
 * found, as the run's redactor writes it — but only where that form tells it
 * apart: two messages that differ only in a secret read alike redacted (and one
 * that is only a secret reads as a piece of any other holding one), and such a
 * message is not judged from outside by its redacted form (review of stop 55, M1).
 */
import { createRedactor, type Message } from '../../../kernel/index.ts';
import type { PeerRun } from '../../loop-port/peer-run.ts';
import { requestsOfTurn } from '../support/peer-view.ts';

/** The user messages' text blocks (a loop may join consecutive user messages into one). */
type UserTexts = readonly (readonly string[])[];

/** How often `text` is in the user messages' text blocks. */
const occurrences = (messages: UserTexts, text: string) => messages.flat().reduce((n, b) => n + b.split(text).length - 1, 0);

/** How many user messages hold `text`. */
const count = (messages: UserTexts, text: string) => messages.filter((m) => m.some((b) => b.includes(text))).length;

const userTexts = (messages: readonly Message[], map: (text: string) => string = (t) => t): UserTexts =>
  messages.filter((m) => m.role === 'user').map((m) => m.content.flatMap((b) => (b.type === 'text' ? [map(b.text)] : [])));

export function messagesKeptObservably(run: PeerRun): string | undefined {
  const redact = createRedactor({ secrets: run.secrets });
  const raw = (messages: readonly Message[]) => userTexts(messages);
  const byList = new Map<readonly Message[], UserTexts>();
  const redacted = (messages: readonly Message[]): UserTexts => {
    let texts = byList.get(messages);
    if (!texts) byList.set(messages, (texts = userTexts(messages, redact)));
    return texts;
  };
  const sent = run.sent;
  const sentRedacted = sent.map((t) => redact(t));
  /** The redacted form of `text`, where it is not the text itself and tells the message apart from every other sent. */
  const telling = (text: string): string | undefined => {
    const form = redact(text);
    if (form === text) return undefined;
    return sent.some((other, i) => other !== text && sentRedacted[i]!.includes(form)) ? undefined : form;
  };

  // No request carries a message more often than it was sent (a history glue that keeps a turn twice: outside
  // probe 28, F3); a sent text inside another is counted once for each sent text that holds it.
  for (const text of new Set(sent.filter((t) => t !== ''))) {
    const form = telling(text);
    for (const [i, request] of run.requests.entries()) {
      const times = sent.reduce((n, t) => n + t.split(text).length - 1, 0);
      const carried = occurrences(raw(request.messages), text);
      if (carried > times) return `request ${i + 1} carries the message "${text.slice(0, 80)}" ${carried} times; it was sent ${timesText(times)}`;
      if (form === undefined) continue;
      const timesRedacted = sentRedacted.reduce((n, t) => n + t.split(form).length - 1, 0);
      const carriedRedacted = occurrences(redacted(request.messages), form);
      if (carriedRedacted > timesRedacted)
        return `request ${i + 1} carries the message "${form.slice(0, 80)}" ${carriedRedacted} times; it was sent ${timesText(timesRedacted)}`;
    }
  }
  /**
   * How many of `messages` hold the message `text`, and how many messages sent before turn `turn` are one it holds too:
   * as sent, else as redacted where that tells it apart; undefined: not to be told.
   */
  const holding = (messages: readonly Message[], text: string, turn: number): { carried: number; before: number } | undefined => {
    const carried = count(raw(messages), text);
    if (carried > 0 || redact(text) === text) return { carried, before: sent.slice(0, turn).filter((t) => t.includes(text)).length };
    const form = telling(text);
    if (form === undefined) return undefined;
    return { carried: count(redacted(messages), form), before: sentRedacted.slice(0, turn).filter((t) => t.includes(form)).length };
  };
  for (const r of run.reports) {
    const text = sent[r.turn];
    if (text === undefined) continue;
    const first = requestsOfTurn(run, r.turn)[0];
    const held = first ? holding(first.messages, text, r.turn) : undefined;
    if (held !== undefined && (held.carried < 1 || held.carried > held.before + 1))
      return `turn ${r.turn}'s first request carries its message ${held.carried} times: "${text.slice(0, 80)}"`;
    if (r.outcome.kind !== 'cancelled') continue;
    const next = requestsOfTurn(run, r.turn + 1)[0];
    const later = next?.messages ?? run.histories[run.histories.length - 1] ?? [];
    if (holding(later, text, r.turn + 1)?.carried === 0)
      return `turn ${r.turn} was cancelled and its message "${text.slice(0, 80)}" is lost: ${next ? `turn ${r.turn + 1}'s first request` : 'the persisted history'} does not hold it`;
  }
  return undefined;
}

const timesText = (n: number) => (n === 1 ? 'once' : `${n} times`);
