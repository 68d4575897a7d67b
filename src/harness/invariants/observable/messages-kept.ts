/**
 * Invariant 9 from outside a loop (follow-ups only: peers have no steer or
 * inject): each turn's first request carries the message the turn was for,
 * once, and no request carries a message more often than it was sent; and the message of a turn cut short by a cancel is not lost — the next
 * turn's first request, or the history at the end, still holds it. A loop that
 * keeps the case's secrets out (invariant 15) sends a message redacted: each
 * text is compared redacted, with the run's redactor, on both sides.
 */
import { createRedactor, type Message } from '../../../kernel/index.ts';
import type { PeerRun } from '../../loop-port/peer-run.ts';
import { requestsOfTurn } from '../support/peer-view.ts';

/** The user messages' text blocks, redacted (a loop may join consecutive user messages into one). */
type UserTexts = readonly (readonly string[])[];

/** How often `text` is in the user messages' text blocks. */
const occurrences = (messages: UserTexts, text: string) => messages.flat().reduce((n, b) => n + b.split(text).length - 1, 0);

const count = (messages: UserTexts, text: string) => messages.filter((m) => m.some((b) => b.includes(text))).length;

export function messagesKeptObservably(run: PeerRun): string | undefined {
  const redact = createRedactor({ secrets: run.secrets });
  const byList = new Map<readonly Message[], UserTexts>();
  const userTexts = (messages: readonly Message[]): UserTexts => {
    let found = byList.get(messages);
    if (!found) {
      found = messages.filter((m) => m.role === 'user').map((m) => m.content.flatMap((b) => (b.type === 'text' ? [redact(b.text)] : [])));
      byList.set(messages, found);
    }
    return found;
  };
  const sentTexts = run.sent.map((t) => redact(t));
  // No request carries a message more often than it was sent (a history glue that keeps a turn twice: outside
  // probe 28, F3); a sent text inside another is counted once for each sent text that holds it.
  const texts = [...new Set(sentTexts.filter((t) => t !== ''))];
  for (let i = 0; i < run.requests.length; i++) {
    for (const text of texts) {
      const sent = sentTexts.reduce((n, t) => n + t.split(text).length - 1, 0);
      const carried = occurrences(userTexts(run.requests[i]!.messages), text);
      if (carried > sent)
        return `request ${i + 1} carries the message "${text.slice(0, 80)}" ${carried} times; it was sent ${sent === 1 ? 'once' : `${sent} times`}`;
    }
  }
  for (const r of run.reports) {
    const text = sentTexts[r.turn];
    if (text === undefined) continue;
    const first = requestsOfTurn(run, r.turn)[0];
    const carried = first ? count(userTexts(first.messages), text) : 1;
    if (carried !== 1) return `turn ${r.turn}'s first request carries its message ${carried} times: "${text.slice(0, 80)}"`;
    if (r.outcome.kind !== 'cancelled') continue;
    const next = requestsOfTurn(run, r.turn + 1)[0];
    const later = next?.messages ?? run.histories[run.histories.length - 1] ?? [];
    if (count(userTexts(later), text) === 0)
      return `turn ${r.turn} was cancelled and its message "${text.slice(0, 80)}" is lost: ${next ? `turn ${r.turn + 1}'s first request` : 'the persisted history'} does not hold it`;
  }
  return undefined;
}
