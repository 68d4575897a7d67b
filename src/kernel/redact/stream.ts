/**
 * Redaction of text that arrives in pieces (a model's streamed reply or tool
 * arguments). Redacting each piece alone misses a key split across two of them:
 * each half passes, and joining the stored pieces rebuilds the key (field failure
 * "a key split across streamed chunks is stored in pieces").
 *
 * So the stream holds back a suffix and only lets out a prefix that no secret
 * can reach into:
 * - at least `hold` characters stay back — longer than any form of a configured
 *   secret, and than what any credential shape needs before it is recognized;
 * - the cut moves left to the start of any secret (or credential shape) that
 *   spans it, so a match is always let out whole, and redacted whole;
 * - a private-key block without its END line counts as running to the end.
 * What is let out is redacted as one text. `end()` lets out the rest. Past
 * `maxHold` held characters (a very long unbroken token) the whole buffer is
 * redacted and let out, so memory stays bounded.
 *
 * With a redactor that cannot say where its secrets are (a plain function), the
 * stream holds everything until `end()`: one redacted piece.
 */
import { createRedactor, type Redactor } from './redactor.ts';
import { formsOf, MIN_SECRET_LENGTH, mayBeginAForm } from './secret-forms.ts';

export interface StreamRedactor {
  /** Takes the next piece; returns the redacted text that may be let out now (possibly empty). */
  push(piece: string): string;
  /** The stream ended: the redacted rest. */
  end(): string;
}

/** What every credential shape needs to be recognized, at most (see secret-rules.ts). */
export const PATTERN_HOLD = 256;
const DEFAULT_MAX_HOLD = 64 * 1024;

export function streamRedactor(redact: Redactor, options: { readonly maxHold?: number } = {}): StreamRedactor {
  const find = redact.find;
  const hold = Math.max(PATTERN_HOLD, redact.longest ?? 0);
  const maxHold = Math.max(options.maxHold ?? DEFAULT_MAX_HOLD, hold * 2);
  let buffer = '';
  const end = (): string => {
    const out = buffer;
    buffer = '';
    return out.length > 0 ? redact(out) : '';
  };
  const push = (piece: string): string => {
    buffer += piece;
    if (buffer.length > maxHold) return end();
    if (!find || buffer.length <= hold) return '';
    const cut = safeCut(buffer.length - hold, find(buffer));
    if (cut <= 0) return '';
    const out = buffer.slice(0, cut);
    buffer = buffer.slice(cut);
    return redact(out);
  };
  return { push, end };
}

/**
 * A stream redactor for exact secrets alone — the API key an adapter was given —
 * with no credential shapes to wait for. It holds back only a tail that could
 * be the start of a form of one of them (usually nothing: a streamed reply is
 * let out as it comes), and never cuts through a form it can already see. Same
 * guarantee as `streamRedactor`: joining what it lets out never rebuilds a form
 * of a secret. A tail is looked for in the last 8 characters per character of
 * the longest secret (each may be escaped with up to three backslashes). Past
 * `maxHold` held characters the whole buffer is redacted and let out.
 */
export function exactSecretStream(secrets: readonly string[]): StreamRedactor {
  const redact = createRedactor({ secrets, patterns: [] });
  const forms = [...new Set(secrets)].filter((s) => s.length >= MIN_SECRET_LENGTH).map(formsOf);
  const window = Math.max(0, ...forms.map((f) => f.secret.length * 8));
  const maxHold = Math.max(DEFAULT_MAX_HOLD, window * 2);
  let buffer = '';
  // A tail that cannot begin a form cannot once more is added either (mayBeginAForm is closed under prefixes), so
  // where the last look stopped is where the next starts: each place is turned down once, not at every piece (a
  // long run of a character the secret repeats cost the window times the secret at each piece).
  let lookFrom = 0;
  const heldFrom = (): number => {
    for (let i = Math.max(lookFrom, buffer.length - window); i < buffer.length; i++) {
      const tail = buffer.slice(i);
      if (forms.some((f) => mayBeginAForm(tail, f))) return (lookFrom = i);
    }
    return (lookFrom = buffer.length);
  };
  const push = (piece: string): string => {
    buffer += piece;
    // As streamRedactor: past the bound (a run the secret's pieces cover end to end can be cut nowhere) the whole
    // buffer goes out redacted, so memory and each piece's scan stay bounded.
    if (buffer.length > maxHold) {
      const out = buffer;
      buffer = '';
      lookFrom = 0;
      return redact(out);
    }
    const cut = safeCut(heldFrom(), redact.find?.(buffer) ?? []);
    if (cut <= 0) return '';
    const out = buffer.slice(0, cut);
    buffer = buffer.slice(cut);
    lookFrom = Math.max(0, lookFrom - cut);
    return redact(out);
  };
  const end = (): string => {
    const out = buffer;
    buffer = '';
    return out.length > 0 ? redact(out) : '';
  };
  return { push, end };
}

/** The largest cut at or before `cut` that no span crosses. */
function safeCut(cut: number, spans: readonly (readonly [number, number])[]): number {
  let at = cut;
  for (let moved = true; moved && at > 0; ) {
    moved = false;
    for (const [start, end] of spans) {
      if (start < at && end > at) {
        at = start;
        moved = true;
      }
    }
  }
  return at;
}
