/**
 * What one model call cost: its reported usage at its model's prices. Input is
 * split as normalized usage reports it (`inputTokens` counts every input token;
 * `cacheReadTokens` and `cacheWriteTokens` say how many of them were read from
 * or written to the prompt cache).
 */
import { countable, type Usage } from '../../kernel/index.ts';
import type { PriceTable } from './price-table.ts';

export type CallPrice =
  /** The amount, in the table's currency. */
  | { readonly amount: number }
  /** The table has no price for the model the call went to. */
  | { readonly unpriced: string }
  /**
   * The call reported a token count no number holds exactly: 2^53 − 1 or more
   * (the provider adapters and the kernel hold a count past 2^53 − 1 at
   * 2^53 − 1, so that count says only "at least this"), or not finite. Its cost
   * is unknown: a budget reads such a count as 2^53 − 1 (fail closed), but a
   * bill for 2^53 − 1 tokens would be a made-up amount.
   */
  | { readonly uncounted: string };

const PER = 1_000_000;

export function priceCall(model: string, usage: Usage | undefined, table: PriceTable): CallPrice {
  const price = Object.hasOwn(table.models, model) ? table.models[model] : undefined;
  if (!price) return { unpriced: model };
  if (!usage) return { amount: 0 }; // nothing reported (a transport error): nothing known to be billed
  if (hasUncountedTokens(usage)) return { uncounted: model };
  // Every count is now a safe integer or less; a negative count bills nothing.
  const count = (n: number | undefined) => (typeof n === 'number' ? countable(n) : 0);
  const cacheRead = count(usage.cacheReadTokens);
  const cacheWrite = count(usage.cacheWriteTokens);
  const uncached = Math.max(0, count(usage.inputTokens) - cacheRead - cacheWrite);
  const amount =
    (uncached * price.input +
      cacheRead * (price.cachedInput ?? price.input) +
      cacheWrite * (price.cacheWrite ?? price.input) +
      count(usage.outputTokens) * price.output) /
    PER;
  return { amount: roundAmount(amount) };
}

/** A billed count (input, cache reads or writes, output) of 2^53 − 1 or more, or not finite (NaN, ±Infinity). */
export function hasUncountedTokens(usage: Usage): boolean {
  return [usage.inputTokens, usage.cacheReadTokens, usage.cacheWriteTokens, usage.outputTokens].some(
    (n) => typeof n === 'number' && !(Number.isFinite(n) && n < Number.MAX_SAFE_INTEGER),
  );
}

/** Sums of floating-point amounts, kept to 12 significant digits so a report never shows 0.30000000000000004. */
export function roundAmount(amount: number): number {
  return amount === 0 ? 0 : Number(amount.toPrecision(12));
}
