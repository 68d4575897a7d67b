/**
 * What a report says the model calls cost follows the price table: each call is
 * billed its uncached input, its cache reads, its cache writes and its output,
 * each at its own price per million tokens (a price left out falls back to the
 * input price; usage counts every input token, cache reads and writes among
 * them). Judged on every run with a reference table of its own — every model
 * the run's requests name gets the same four different prices — so the
 * arithmetic is checked whether or not the config has prices: the report's
 * costing (report/cost: per call, per turn, in total) against a computation
 * written here, from the log's usage.
 *
 * Outside probe 7's plant P10 (cache reads billed at the full input price)
 * passed the gate before this check: costs were reported, never checked.
 */
import type { LogEvent } from '../../kernel/index.ts';
import { costOfLog } from '../../report/cost/cost-of-log.ts';
import type { ScenarioRun } from '../second-host.ts';
import { referenceBill as billed, referencePriceTable, REFERENCE_PRICES as PRICES, sameAmount as close, uncountable } from '../world/reference-prices.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';

export const costFollowsPriceTable = defineInvariant({
  id: 'cost-follows-price-table',
  title: 'the reported cost of each call, turn and run is its uncached input, cache reads, cache writes and output at their prices',
  appliesTo: loopgateOnly("a peer's usage is not in a loopgate log"),
  check: (run) => costFollows(run),
});

function costFollows(run: ScenarioRun): string | undefined {
  const events = run.log.events.filter((e) => !e.opaque) as LogEvent[];
  const models = new Set<string>();
  for (const e of events) if (e.type === 'model.request') models.add(e.payload.model);
  if (models.size === 0) return undefined;
  const table = referencePriceTable(models);
  const reported = costOfLog(run.log.events, table);
  // The reference: each model.result with usage, billed here.
  // A call whose usage holds a count of 2^53 − 1 or more (or not finite) has no amount: its cost is unknown, never the bill of 2^53 − 1.
  const expected: { turn: number; step: number; attempt: number; amount: number; uncounted: boolean }[] = [];
  for (const e of events) {
    if (e.type !== 'model.result') continue;
    const { turn, step, attempt, result } = e.payload;
    const uncounted = result.usage !== undefined && uncountable(result.usage);
    expected.push({ turn, step, attempt, amount: result.usage && !uncounted ? billed(result.usage) : 0, uncounted });
  }
  if (reported.calls.length !== expected.length)
    return `the report prices ${reported.calls.length} model call(s), the log holds ${expected.length} model.result event(s)`;
  for (const [i, want] of expected.entries()) {
    const got = reported.calls[i]!;
    const where = `model call turn ${want.turn} step ${want.step} attempt ${want.attempt}`;
    if (want.uncounted) {
      if (got.uncounted !== true || got.amount !== undefined)
        return `${where}: usage ${JSON.stringify(got.usage ?? null)} holds a token count ≥ 2^53 − 1, but the report prices it at ${got.amount ?? 'nothing'} instead of calling its cost unknown`;
      continue;
    }
    if (got.uncounted) return `${where}: reported with a token count ≥ 2^53 − 1, but its usage ${JSON.stringify(got.usage ?? null)} holds none`;
    if (got.amount === undefined) return `${where}: reported unpriced, but its model ${got.model} has a price`;
    if (!close(got.amount, want.amount))
      return `${where}: reported ${got.amount} USD for usage ${JSON.stringify(got.usage ?? null)} at ${JSON.stringify(PRICES)} per million, but that is ${want.amount} USD`;
  }
  const turns = new Map<number, number>();
  for (const c of expected) turns.set(c.turn, (turns.get(c.turn) ?? 0) + c.amount);
  for (const t of reported.total.turns) {
    const want = turns.get(t.turn) ?? 0;
    if (!close(t.amount, want)) return `turn ${t.turn}: reported ${t.amount} USD, but its calls cost ${want} USD`;
  }
  const total = expected.reduce((n, c) => n + c.amount, 0);
  if (!close(reported.total.amount, total)) return `the run: reported ${reported.total.amount} USD, but its calls cost ${total} USD`;
  const uncounted = expected.filter((c) => c.uncounted).length;
  if ((reported.total.uncountedCalls ?? 0) !== uncounted)
    return `the run: reported ${reported.total.uncountedCalls ?? 0} call(s) with a token count ≥ 2^53 − 1, the log holds ${uncounted}`;
  return undefined;
}
