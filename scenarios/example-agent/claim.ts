/**
 * The example agent's claim policy: a customer who pastes a payment card number
 * into the chat never has it reach the model or the history whole (the log's
 * inbox record keeps what arrived; a redaction rule would keep it out of the
 * log too). Each message is
 * let through with every card number in it masked to its last four digits
 * (PCI DSS: a primary account number is not stored). A message that is nothing
 * but a card number is dropped.
 */
import type { ClaimPolicy } from '../../src/kernel/index.ts';

/** 13 to 19 digits, optionally in groups split by spaces or dashes. */
const CARD = /\b\d(?:[ -]?\d){12,18}\b/g;

export function masked(text: string): string {
  return text.replace(CARD, (card) => `[card ending ${card.replace(/\D/g, '').slice(-4)}]`);
}

export const cardNumbersMasked: ClaimPolicy = {
  claim(messages) {
    let rewrite: Map<string, string | null> | undefined;
    for (const m of messages) {
      const text = masked(m.text);
      if (text === m.text) continue;
      rewrite ??= new Map();
      rewrite.set(m.id, /^\s*\[card ending \d{4}\]\s*$/.test(text) ? null : text);
    }
    return rewrite ? { decision: 'allow', rewrite } : { decision: 'allow' };
  },
};
