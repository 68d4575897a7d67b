/**
 * How an invariant's message names a secret it found: at most its first four
 * characters and never more than a quarter of it, with its length — enough to
 * tell two configured secrets apart, never the whole of a short one.
 */
export function secretHint(secret: string): string {
  let shown = Math.min(4, Math.floor(secret.length / 4));
  // Never half a character: a high surrogate last would put a lone one into the reports.
  const last = secret.charCodeAt(shown - 1);
  if (shown > 0 && last >= 0xd800 && last <= 0xdbff) shown--;
  return `${secret.slice(0, shown)}…, ${secret.length} characters`;
}
