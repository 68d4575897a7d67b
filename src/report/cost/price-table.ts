/**
 * A price table: what a model's tokens cost, per model name as requests name it
 * (`model.request`'s `model`), in one currency per million tokens — the way
 * providers publish their prices. `loopgate.config.ts` gives it as `prices`,
 * the production host's YAML config as `prices:` too.
 *
 *   prices: {
 *     currency: 'USD',
 *     models: {
 *       'claude-sonnet-4-5': { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 },
 *       'gpt-4.1-mini': { input: 0.4, output: 1.6, cachedInput: 0.1 },
 *     },
 *   }
 *
 * `cachedInput` (input read from the prompt cache) and `cacheWrite` (input
 * written to it) default to `input`. A model the table does not name has no
 * price: its calls are counted as unpriced, never as free.
 */
export interface ModelPrice {
  /** Per million input tokens not read from or written to a cache. */
  readonly input: number;
  /** Per million output tokens (reasoning included). */
  readonly output: number;
  /** Per million input tokens read from the prompt cache (default: `input`). */
  readonly cachedInput?: number;
  /** Per million input tokens written to the prompt cache (default: `input`). */
  readonly cacheWrite?: number;
}

export interface PriceTable {
  /** What the amounts are in, as reports show it: an ISO 4217 code such as USD or EUR. Default USD. */
  readonly currency: string;
  /** By model name, exactly as requests name the model. */
  readonly models: Readonly<Record<string, ModelPrice>>;
}

export const PRICE_KEYS = ['input', 'output', 'cachedInput', 'cacheWrite'] as const;

/** The highest price per million tokens taken, in any currency (a million won is about 700 dollars). */
export const MAX_PRICE = 1_000_000_000;
const TABLE_KEYS = ['currency', 'models'] as const;

/** A problem in a price table: the key path below the table (`models.gpt-4o.input`) and what is wrong. */
export interface PriceTableProblem {
  readonly path: readonly string[];
  readonly message: string;
}

/** Checks a price table given as data (from a config file); every problem found, or the table. */
export function checkPriceTable(value: unknown): { table: PriceTable } | { problems: PriceTableProblem[] } {
  const problems: PriceTableProblem[] = [];
  const fail = (path: string[], message: string) => problems.push({ path, message });
  if (!isPlainObject(value))
    return { problems: [{ path: [], message: `expected { currency, models: { MODEL: { input, output, cachedInput } } }, got ${describe(value)}` }] };
  for (const key of Object.keys(value)) if (!(TABLE_KEYS as readonly string[]).includes(key)) fail([key], unknownKey(key, TABLE_KEYS));
  const currency = value['currency'] ?? 'USD';
  if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency))
    fail(['currency'], `expected a currency code of three capitals (USD, EUR), got ${describe(currency)}`);
  const models = value['models'];
  if (!isPlainObject(models)) fail(['models'], `expected prices by model name, { 'gpt-4.1-mini': { input: 0.4, output: 1.6 } }, got ${describe(models)}`);
  else {
    if (Object.keys(models).length === 0) fail(['models'], 'names no model; give at least one, or leave prices out');
    for (const [model, price] of Object.entries(models)) {
      if (model.trim() === '') fail(['models', model], 'a model name cannot be empty');
      if (!isPlainObject(price)) {
        fail(['models', model], `expected { input, output, cachedInput?, cacheWrite? } per million tokens, got ${describe(price)}`);
        continue;
      }
      for (const key of Object.keys(price)) if (!(PRICE_KEYS as readonly string[]).includes(key)) fail(['models', model, key], unknownKey(key, PRICE_KEYS));
      for (const key of PRICE_KEYS) {
        const amount = price[key];
        if (amount === undefined && (key === 'cachedInput' || key === 'cacheWrite')) continue;
        if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0)
          fail(['models', model, key], `expected a price per million tokens, a number ≥ 0, got ${describe(amount)}`);
        // 2^53 tokens at this price stay a finite amount, summed over any run (outside probe 64, F16: 1e308 made Infinity).
        else if (amount > MAX_PRICE)
          fail(
            ['models', model, key],
            `expected a price per million tokens of at most ${MAX_PRICE} (a cost must stay a number for any token count), got ${amount}`,
          );
      }
    }
  }
  if (problems.length > 0) return { problems };
  return { table: { currency: currency as string, models: models as PriceTable['models'] } };
}

function unknownKey(_key: string, known: readonly string[]): string {
  return `unknown key; known: ${known.join(', ')}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value); // JSON would print null
  if (typeof value === 'object') return 'an object';
  return JSON.stringify(value) ?? String(value);
}
