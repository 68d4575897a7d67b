/**
 * A token count as a provider's usage report may carry it: kept only when it is
 * one (a whole number from 0 up to Number.MAX_SAFE_INTEGER). A wire that sends
 * -7, 2.5 or 1e300 has not counted anything: the count is left out, as when it
 * was not sent, rather than handed to budgets and prices.
 */
export function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}
