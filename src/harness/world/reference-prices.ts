/**
 * The gate's own price table: every model a case names gets the same four
 * different prices per million tokens, so a token billed at another kind's
 * price shows. The production host in the gate is given it in its YAML (each
 * answer then carries its turns' cost), and the checks bill the log's usage
 * with it themselves (invariants cost-follows-price-table and
 * host-answers-follow-outcomes): the arithmetic is judged whether or not a
 * team's config has prices.
 */
import type { Usage } from '../../kernel/index.ts';
import type { PriceTable } from '../../report/cost/price-table.ts';

/** Per million tokens. */
export const REFERENCE_PRICES = { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 } as const;

/** The reference table for these models. */
export function referencePriceTable(models: Iterable<string>): PriceTable {
  return { currency: 'USD', models: Object.fromEntries([...new Set(models)].map((m) => [m, REFERENCE_PRICES])) };
}

/** One call's bill (every count exact): every kind of token counted once, at its own price. */
export function referenceBill(usage: Usage): number {
  const tokens = (n: number | undefined) => (typeof n === 'number' && n > 0 ? n : 0);
  const cacheRead = tokens(usage.cacheReadTokens);
  const cacheWrite = tokens(usage.cacheWriteTokens);
  const input = tokens(usage.inputTokens);
  const parts: [number, number][] = [
    [Math.max(0, input - cacheRead - cacheWrite), REFERENCE_PRICES.input],
    [cacheRead, REFERENCE_PRICES.cachedInput],
    [cacheWrite, REFERENCE_PRICES.cacheWrite],
    [tokens(usage.outputTokens), REFERENCE_PRICES.output],
  ];
  return parts.reduce((sum, [count, perMillion]) => sum + (count / 1_000_000) * perMillion, 0);
}

/** A billed count no number holds exactly: 2^53 − 1 or more (where adapters and the kernel hold a larger one), NaN or ±Infinity. */
export function uncountable(usage: Usage): boolean {
  const counts = [usage.inputTokens, usage.outputTokens, usage.cacheReadTokens, usage.cacheWriteTokens];
  return counts.some((n) => typeof n === 'number' && (Number.isNaN(n) || Math.abs(n) === Infinity || n >= Number.MAX_SAFE_INTEGER));
}

/** Equal to 9 significant digits (the report keeps 12); an amount that is not finite equals nothing. */
export function sameAmount(a: number, b: number): boolean {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}
