/**
 * How an invariant's message names a secret it found: at most its first four
 * characters and never more than a quarter of it, with its length — enough to
 * tell two configured secrets apart, never the whole of a short one.
 */
export function secretHint(secret: string): string {
  return `${secret.slice(0, Math.min(4, Math.floor(secret.length / 4)))}…, ${secret.length} characters`;
}
