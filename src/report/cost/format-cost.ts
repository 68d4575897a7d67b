/**
 * Money for people. Amounts per case are often fractions of a cent, so they
 * keep three significant digits below one unit (`$0.000105`) and cents above
 * (`$12.40`). An incomplete cost never reads as a plain number: calls to a
 * model with no price are named beside the priced part.
 */
import type { CaseCost, SuiteCost } from '../results.ts';

const SYMBOL: Readonly<Record<string, string>> = { USD: '$', EUR: '€', GBP: '£', JPY: '¥' };

export function formatMoney(amount: number, currency: string): string {
  const symbol = SYMBOL[currency];
  const abs = Math.abs(amount);
  const digits = abs === 0 ? '0' : abs >= 1 ? abs.toFixed(2) : trimZeros(abs.toPrecision(3));
  const text = `${amount < 0 ? '-' : ''}${symbol ?? ''}${digits}`;
  return symbol ? text : `${text} ${currency}`;
}

function trimZeros(text: string): string {
  if (text.includes('e')) return Number(text).toFixed(12).replace(/0+$/, '');
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/**
 * A case's or a suite's cost as one phrase: `$0.00042`, or when some calls went
 * to a model without a price `$0.00042 + 2 unpriced calls (gpt-x)`, or when
 * none had a price `unknown: 3 calls to unpriced models (gpt-x)`. A call that
 * reported a token count ≥ 2^53 − 1 is unknown too, and named for that:
 * `$0.00042 + 1 call with a token count ≥ 2^53 − 1 (cost unknown)`.
 */
export function costText(cost: Pick<CaseCost, 'amount' | 'currency' | 'unpricedCalls' | 'unpricedModels' | 'uncountedCalls'>): string {
  const money = formatMoney(cost.amount, cost.currency);
  const uncounted = cost.uncountedCalls ?? 0;
  if (cost.unpricedCalls === 0 && uncounted === 0) return money;
  const parts: string[] = [];
  if (cost.unpricedCalls > 0) {
    const models = cost.unpricedModels?.length ? ` (no price for ${cost.unpricedModels.join(', ')})` : '';
    parts.push(`${cost.unpricedCalls} unpriced call${cost.unpricedCalls === 1 ? '' : 's'}${models}`);
  }
  if (uncounted > 0) parts.push(`${uncounted} call${uncounted === 1 ? '' : 's'} with a token count ≥ 2^53 − 1`);
  const unknown = parts.join(' + ');
  if (cost.amount === 0) return `unknown: ${unknown}`;
  return `${money} + ${unknown}${uncounted > 0 ? ' (cost unknown)' : ''}`;
}

/** The suite's line: `cost $0.0123 over 40 cases` (and what is unpriced). */
export function suiteCostText(cost: SuiteCost): string {
  return `${costText(cost)} over ${cost.cases} case${cost.cases === 1 ? '' : 's'}`;
}

/** Per turn, when there is more than one: `turn 1 $0.0002, turn 2 $0.0004`. */
export function turnCostsText(cost: CaseCost): string {
  if (cost.turns.length < 2) return '';
  return cost.turns.map((t) => `turn ${t.turn} ${costText({ ...t, currency: cost.currency })}`).join(', ');
}

/** A case's cost with its turns: `$0.0006 (turn 1 $0.0002, turn 2 $0.0004)`. */
export function caseCostText(cost: CaseCost): string {
  const turns = turnCostsText(cost);
  return turns ? `${costText(cost)} (${turns})` : costText(cost);
}
