/**
 * Which posts through the production host are one message: those that give the
 * same client message id with the same text and the same intent (README,
 * "Retrying safely"). The host compares texts as it stores them, redacted, so
 * two texts that differ only in a secret are one message. The same id with
 * another text or intent is not a retry: it is refused 422 and nothing is stored.
 */
import type { HostPost } from '../../world/host-target.ts';

export function oneMessage(a: HostPost, b: HostPost, redact: (text: string) => string): boolean {
  return a.messageId !== undefined && a.messageId === b.messageId && a.intent === b.intent && redact(a.text) === redact(b.text);
}
