import { describe, expect, it } from 'vitest';
import type { AnyEvent } from '../../kernel/index.ts';
import { costOfLog } from './cost-of-log.ts';
import { caseCostText, costText, formatMoney } from './format-cost.ts';
import { priceCall } from './price-call.ts';
import { checkPriceTable, type PriceTable } from './price-table.ts';

const table: PriceTable = {
  currency: 'USD',
  models: { big: { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 }, small: { input: 0.4, output: 1.6 } },
};

describe('priceCall', () => {
  it('prices input, output, cache reads and cache writes per million tokens', () => {
    // 1000 input of which 600 read from the cache and 100 written to it: 300 uncached.
    const usage = { inputTokens: 1000, outputTokens: 200, cacheReadTokens: 600, cacheWriteTokens: 100 };
    const expected = (300 * 3 + 600 * 0.3 + 100 * 3.75 + 200 * 15) / 1e6;
    expect(priceCall('big', usage, table)).toEqual({ amount: Number(expected.toPrecision(12)) });
  });

  it('prices cached input at the input price when the table gives no cachedInput', () => {
    expect(priceCall('small', { inputTokens: 1000, outputTokens: 0, cacheReadTokens: 1000 }, table)).toEqual({ amount: 0.0004 });
  });

  it('a count of 2^53 − 1 or more (or not finite) leaves the cost unknown, never the bill of 2^53 − 1 tokens; a negative count bills nothing', () => {
    // 2^53 − 1 itself is where the adapters and the kernel hold a larger count: it says only "at least this".
    for (const n of [1e308, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN]) {
      expect(priceCall('small', { inputTokens: n, outputTokens: 1000 }, table), String(n)).toEqual({ uncounted: 'small' });
      expect(priceCall('big', { inputTokens: 10, outputTokens: n }, table), String(n)).toEqual({ uncounted: 'big' });
      expect(priceCall('big', { inputTokens: 10, outputTokens: 1, cacheReadTokens: n }, table), String(n)).toEqual({ uncounted: 'big' });
      expect(priceCall('big', { inputTokens: 10, outputTokens: 1, cacheWriteTokens: n }, table), String(n)).toEqual({ uncounted: 'big' });
    }
    // One less is a count: priced.
    expect(priceCall('small', { inputTokens: Number.MAX_SAFE_INTEGER - 1, outputTokens: 0 }, table)).toEqual({ amount: 3602879701.9 });
    // A model without a price stays unpriced, whatever its usage says.
    expect(priceCall('gpt-5', { inputTokens: 1e308, outputTokens: 0 }, table)).toEqual({ unpriced: 'gpt-5' });
    expect(priceCall('small', { inputTokens: -5, outputTokens: -3 }, table)).toEqual({ amount: 0 });
  });

  it('a model the table does not name is unpriced, not free', () => {
    expect(priceCall('gpt-5', { inputTokens: 10, outputTokens: 5 }, table)).toEqual({ unpriced: 'gpt-5' });
    expect(priceCall('toString', { inputTokens: 10, outputTokens: 5 }, table)).toEqual({ unpriced: 'toString' });
  });
});

describe('costOfLog', () => {
  // The two events a model call leaves in the log, as a store returns them.
  const events: AnyEvent[] = [];
  const event = (type: string, payload: unknown) => events.push({ type, seq: events.length, v: 1, at: 0, payload, ignorable: false } as unknown as AnyEvent);
  function call(turn: number, step: number, model: string, usage?: { inputTokens: number; outputTokens: number }) {
    event('model.request', { turn, step, attempt: 1, client: 'c', model, upTo: 0, prompt: 0, tools: 0, maxTokens: 100 });
    event('model.result', { turn, step, attempt: 1, result: { type: 'reply', ...(usage ? { usage } : {}) } });
  }

  it('prices every call by the model its request named, sums per turn and per case, and counts the unpriced apart', () => {
    call(1, 1, 'big', { inputTokens: 1000, outputTokens: 100 }); // 0.003 + 0.0015
    call(1, 2, 'small', { inputTokens: 1000, outputTokens: 1000 }); // 0.0004 + 0.0016
    call(2, 1, 'mystery', { inputTokens: 50, outputTokens: 5 });
    call(2, 2, 'mystery'); // no usage reported: nothing to price, nothing unknown
    const { calls, total } = costOfLog(events, table);
    expect(calls.map((c) => [c.request, c.model, c.amount])).toEqual([
      [0, 'big', 0.0045],
      [1, 'small', 0.002],
      [2, 'mystery', undefined],
      [3, 'mystery', undefined],
    ]);
    expect(total).toEqual({
      currency: 'USD',
      amount: 0.0065,
      unpricedCalls: 1,
      unpricedModels: ['mystery'],
      turns: [
        { turn: 1, amount: 0.0065, unpricedCalls: 0 },
        { turn: 2, amount: 0, unpricedCalls: 1 },
      ],
    });
    expect(costText(total)).toBe('$0.0065 + 1 unpriced call (no price for mystery)');
    expect(costText({ ...total, amount: 0 })).toBe('unknown: 1 unpriced call (no price for mystery)');
  });

  it('counts a call with a token count ≥ 2^53 − 1 apart, per turn and per case, never in the amount', () => {
    events.length = 0;
    call(1, 1, 'big', { inputTokens: 1000, outputTokens: 100 }); // 0.0045
    call(1, 2, 'small', { inputTokens: 1e308, outputTokens: 20 });
    call(2, 1, 'small', { inputTokens: 20, outputTokens: Number.POSITIVE_INFINITY });
    call(2, 2, 'mystery', { inputTokens: 1e308, outputTokens: 5 }); // no price: unpriced, not uncounted
    const { calls, total } = costOfLog(events, table);
    expect(calls.map((c) => [c.model, c.amount, c.uncounted])).toEqual([
      ['big', 0.0045, undefined],
      ['small', undefined, true],
      ['small', undefined, true],
      ['mystery', undefined, undefined],
    ]);
    expect(total).toEqual({
      currency: 'USD',
      amount: 0.0045,
      unpricedCalls: 1,
      unpricedModels: ['mystery'],
      uncountedCalls: 2,
      turns: [
        { turn: 1, amount: 0.0045, unpricedCalls: 0, uncountedCalls: 1 },
        { turn: 2, amount: 0, unpricedCalls: 1, uncountedCalls: 1 },
      ],
    });
    expect(caseCostText(total)).toBe(
      '$0.0045 + 1 unpriced call (no price for mystery) + 2 calls with a token count ≥ 2^53 − 1 (cost unknown)' +
        ' (turn 1 $0.0045 + 1 call with a token count ≥ 2^53 − 1 (cost unknown), turn 2 unknown: 1 unpriced call + 1 call with a token count ≥ 2^53 − 1)',
    );
    expect(costText({ currency: 'USD', amount: 0, unpricedCalls: 0, uncountedCalls: 3 })).toBe('unknown: 3 calls with a token count ≥ 2^53 − 1');
    // Without one, the text is as before.
    expect(costText({ currency: 'USD', amount: 0.5, unpricedCalls: 0 })).toBe('$0.5');
  });
});

describe('formatMoney', () => {
  it('keeps three significant digits below one unit and cents above; codes without a sign follow the amount', () => {
    expect(formatMoney(0.000105, 'USD')).toBe('$0.000105');
    expect(formatMoney(0.1 + 0.2, 'USD')).toBe('$0.3');
    expect(formatMoney(12.4, 'EUR')).toBe('€12.40');
    expect(formatMoney(0.5, 'CHF')).toBe('0.5 CHF');
    expect(formatMoney(0, 'USD')).toBe('$0');
    expect(formatMoney(1e-9, 'USD')).toBe('$0.000000001');
  });
});

describe('checkPriceTable', () => {
  it('accepts a table and defaults the currency to USD', () => {
    expect(checkPriceTable({ models: { m: { input: 1, output: 2 } } })).toEqual({ table: { currency: 'USD', models: { m: { input: 1, output: 2 } } } });
  });

  it('names every bad key: negative or missing prices, unknown keys, a bad currency, no models', () => {
    const bad = checkPriceTable({ currency: 'usd', models: { m: { input: -1, outptu: 2 }, n: 'cheap' } });
    expect('problems' in bad && bad.problems.map((p) => `${p.path.join('.')}: ${p.message}`)).toEqual([
      'currency: expected a currency code of three capitals (USD, EUR), got "usd"',
      'models.m.outptu: unknown key; known: input, output, cachedInput, cacheWrite',
      'models.m.input: expected a price per million tokens, a number ≥ 0, got -1',
      'models.m.output: expected a price per million tokens, a number ≥ 0, got nothing',
      'models.n: expected { input, output, cachedInput?, cacheWrite? } per million tokens, got "cheap"',
    ]);
    const none = checkPriceTable({ models: {} });
    expect('problems' in none && none.problems[0]!.path).toEqual(['models']);
    const infinite = checkPriceTable({ models: { m: { input: Infinity, output: 1 } } });
    // YAML reads 1e999 as infinity: the line says so, not "got null" (JSON's spelling of it; outside probe 6).
    expect('problems' in infinite && infinite.problems[0]!.message).toBe('expected a price per million tokens, a number ≥ 0, got Infinity');
    // Outside probe 64, F16: 1e308 was taken, a call's cost came out Infinity, and the run ended "the json report
    // disagrees… a loopgate bug" with every case passed.
    const huge = checkPriceTable({ models: { m: { input: 1e308, output: 1 } } });
    expect('problems' in huge && huge.problems[0]!.message).toBe(
      'expected a price per million tokens of at most 1000000000 (a cost must stay a number for any token count), got 1e+308',
    );
  });
});
