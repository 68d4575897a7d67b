/**
 * A conversation id as an answer about it may show it: the id was refused, so
 * it is whatever a client sent. Control, bidi and other invisible characters
 * (Unicode Cc, Cf, Zl, Zp and lone surrogates) become `\uXXXX` escapes — one
 * would reorder or hide the text of a log line or a terminal showing the JSON —
 * and a long id is cut to its first 64 characters and its length. A `\\` or
 * `"` is escaped too, so the id reads unambiguously between quotes.
 */
export const SHOWN_ID_CHARS = 64;

const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

export function shownId(id: unknown): string {
  const chars = Array.from(String(id));
  const kept = chars.length > SHOWN_ID_CHARS ? chars.slice(0, SHOWN_ID_CHARS) : chars;
  const escaped = kept
    .join('')
    .replace(/[\\"]/g, (c) => `\\${c}`)
    .replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return chars.length > SHOWN_ID_CHARS ? `${escaped}… (${chars.length} characters)` : escaped;
}
