/**
 * Output the model reads is capped (seed 000 §5, after stage): a tool that
 * returns megabytes must not fill the context window. The cut is announced in the
 * text — the model must know it saw a part — and the full output stays in the log.
 */
export interface Truncated {
  readonly content: string;
  /** Characters in the full text, when it was cut. */
  readonly truncatedFrom?: number;
}

export function truncateForModel(text: string, maxChars: number): Truncated {
  if (text.length <= maxChars) return { content: text };
  let kept = maxChars;
  // Never split a surrogate pair: half a character is not text.
  const last = text.charCodeAt(kept - 1);
  if (kept > 0 && last >= 0xd800 && last <= 0xdbff) kept--;
  const cut = text.length - kept;
  const note = `\n\n[output truncated: showing the first ${kept} of ${text.length} characters; ${cut} characters were cut. The full output is kept in the log.]`;
  return { content: text.slice(0, kept) + note, truncatedFrom: text.length };
}
