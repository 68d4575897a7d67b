/**
 * A token count as a provider's usage report may carry it: a whole number from 0
 * up to Number.MAX_SAFE_INTEGER is kept. One past that (2^60, 1e300: JSON carries
 * it, no safe integer holds it) reads as Number.MAX_SAFE_INTEGER — it was
 * certainly not zero, and left out it would read as 0 and let a token budget pass:
 * budgets fail closed. A wire that sends -7 or 2.5 has not counted anything: that
 * count is left out, as when it was not sent.
 */
export function tokenCount(value: unknown): number | undefined {
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) return undefined;
  if (value > Number.MAX_SAFE_INTEGER) return Number.MAX_SAFE_INTEGER;
  return Number.isInteger(value) ? value : undefined;
}
