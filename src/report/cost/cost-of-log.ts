/**
 * What a conversation's model calls cost, from its log alone: each
 * `model.request` names the model the request went to, the `model.result` of
 * the same turn, step and attempt carries the usage the provider reported. The
 * cost of every call, summed per turn and for the whole log.
 */
import type { AnyEvent, LogEvent, Usage } from '../../kernel/index.ts';
import type { CaseCost, TurnCost } from '../results.ts';
import { priceCall, roundAmount } from './price-call.ts';
import type { PriceTable } from './price-table.ts';

/** One model call: the model its request named and what it cost (`amount` absent when the model has no price, or the call is `uncounted`). */
export interface CallCost {
  /** Its request's position among the log's `model.request` events (0-based). */
  readonly request: number;
  readonly turn: number;
  readonly step: number;
  readonly attempt: number;
  readonly model: string;
  readonly usage?: Usage;
  readonly amount?: number;
  /** Its usage holds a token count ≥ 2^53 − 1 (or not finite): its cost is unknown. */
  readonly uncounted?: true;
}

export interface LogCost {
  /** Every call with a result, in log order. */
  readonly calls: readonly CallCost[];
  readonly total: CaseCost;
}

export function costOfLog(events: readonly AnyEvent[], table: PriceTable): LogCost {
  const requests = new Map<string, { model: string; index: number }>();
  const calls: CallCost[] = [];
  let index = 0;
  for (const e of events) {
    if (e.opaque) continue;
    const event = e as LogEvent;
    if (event.type === 'model.request') {
      const { turn, step, attempt, model } = event.payload;
      requests.set(`${turn}:${step}:${attempt}`, { model, index: index++ });
    } else if (event.type === 'model.result') {
      const { turn, step, attempt, result } = event.payload;
      const request = requests.get(`${turn}:${step}:${attempt}`);
      const model = request?.model ?? '(no model.request)';
      const price = priceCall(model, result.usage, table);
      calls.push({
        request: request?.index ?? -1,
        turn,
        step,
        attempt,
        model,
        ...(result.usage ? { usage: result.usage } : {}),
        ...('amount' in price ? { amount: price.amount } : {}),
        ...('uncounted' in price ? { uncounted: true as const } : {}),
      });
    }
  }
  return { calls, total: totalOf(calls, table.currency) };
}

/** A call counts as unpriced when it reported usage for a model without a price; one that reported nothing adds nothing. */
export function isUnpriced(call: CallCost): boolean {
  return call.amount === undefined && call.usage !== undefined && call.uncounted !== true;
}

/** A call whose usage holds a token count ≥ 2^53 − 1: its cost is unknown, never the price of 2^53 − 1 tokens. */
export function isUncounted(call: CallCost): boolean {
  return call.uncounted === true;
}

function totalOf(calls: readonly CallCost[], currency: string): CaseCost {
  const turns = new Map<number, { amount: number; unpricedCalls: number; uncountedCalls: number }>();
  const unpricedModels = new Set<string>();
  let amount = 0;
  let unpricedCalls = 0;
  let uncountedCalls = 0;
  for (const call of calls) {
    const turn = turns.get(call.turn) ?? { amount: 0, unpricedCalls: 0, uncountedCalls: 0 };
    turns.set(call.turn, turn);
    if (isUncounted(call)) {
      uncountedCalls++;
      turn.uncountedCalls++;
    } else if (isUnpriced(call)) {
      unpricedCalls++;
      turn.unpricedCalls++;
      unpricedModels.add(call.model);
    } else {
      amount += call.amount ?? 0;
      turn.amount += call.amount ?? 0;
    }
  }
  const perTurn: TurnCost[] = [...turns.entries()]
    .sort(([a], [b]) => a - b)
    .map(([turn, t]) => ({
      turn,
      amount: roundAmount(t.amount),
      unpricedCalls: t.unpricedCalls,
      ...(t.uncountedCalls > 0 ? { uncountedCalls: t.uncountedCalls } : {}),
    }));
  return {
    currency,
    amount: roundAmount(amount),
    unpricedCalls,
    ...(unpricedModels.size > 0 ? { unpricedModels: [...unpricedModels].sort() } : {}),
    ...(uncountedCalls > 0 ? { uncountedCalls } : {}),
    turns: perTurn,
  };
}
