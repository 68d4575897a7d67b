import { redactUnder } from '../redact/named-values.ts';
import { LogAppendError } from './errors.ts';

/**
 * Validates that `value` is plain JSON data and returns a frozen deep copy, in one
 * pass: each property is read exactly once and the value read is the value
 * stored, so a getter cannot show validation one value and storage another.
 *
 * Rejected: functions, symbols, `undefined`, `NaN` and the infinities, `BigInt`,
 * class instances (anything whose prototype is not Object.prototype or null, and
 * arrays with extra or missing entries), and cycles.
 *
 * Every event passes through here, so it is written for speed: objects are copied
 * with a spread (one read per property, far faster than adding keys one by one)
 * and the path to the current value is kept as a key list, turned into text only
 * for an error.
 */
export function toFrozenPlainData(value: unknown, path = 'payload', redact?: (text: string) => string): unknown {
  if (typeof value === 'object' && value !== null) {
    if (!redact && isRecent(value)) return value;
    if (sharable(value, redact)) return value;
  }
  const walk: Walk = { root: path, keys: [], ancestors: [], redact };
  if (typeof value !== 'object' || value === null) return copy(value, walk);
  const out = copy(value, walk) as object;
  recent[recentNext] = out;
  recentNext = (recentNext + 1) % RECENT_SIZE;
  return out;
}

/**
 * `toFrozenPlainData` for a value inside a payload a builder writes (log/builders.ts):
 * the same checks and copy, with its path given as a root and the keys below it
 * (turned into text only for an error), and not remembered on its own — the
 * builder remembers the whole payload.
 */
export function frozenPlainAt(value: unknown, root: string, keys: (string | number)[], redact: ((text: string) => string) | undefined): unknown {
  if (typeof value === 'object' && value !== null && sharable(value, redact)) return value;
  return copy(value, { root, keys, ancestors: [], redact });
}

type Redact = (text: string) => string;

/**
 * The last values made by `toFrozenLoggable`, with the redactor their strings
 * passed: frozen plain JSON data, every string and key redacted once — what the
 * copy would return for them under that redactor. Shared as they are instead of
 * copied (a tool call's arguments and output, logged right after they are made).
 * A small ring, as `recent`: a WeakMap costs more per value than the copies it
 * saves, and the log asks for them moments after they were made.
 */
const LOGGABLE_SIZE = 32;
const loggables: (object | undefined)[] = new Array(LOGGABLE_SIZE).fill(undefined);
const loggableRedactors: (Redact | undefined)[] = new Array(LOGGABLE_SIZE).fill(undefined);
let loggableNext = 0;

function rememberLoggable(value: object, redact: Redact): void {
  loggables[loggableNext] = value;
  loggableRedactors[loggableNext] = redact;
  loggableNext = (loggableNext + 1) % LOGGABLE_SIZE;
}

/** May `value` be kept as it is where a copy redacted with `redact` (or not redacted) was asked for? */
function sharable(value: object, redact: Redact | undefined): boolean {
  // Newest first: the log asks for a value moments after it was made.
  for (let n = 1; n <= LOGGABLE_SIZE; n++) {
    const i = (loggableNext - n + LOGGABLE_SIZE) % LOGGABLE_SIZE;
    if (loggables[i] === value) return redact === undefined || loggableRedactors[i] === redact;
  }
  return false;
}

export type Loggable = { readonly ok: true; readonly value: unknown; readonly plain: unknown } | { readonly ok: false; readonly reason: string };

/**
 * What a JSON round trip of `value` gives — the plain form a reader expects (Dates
 * become ISO strings, undefined fields go, what JSON cannot hold is refused) — with
 * every string and key redacted, frozen: how a tool call's arguments and output
 * are logged and traced. In one pass for data that is JSON-shaped already (plain
 * objects, dense arrays, strings, finite numbers, booleans, null — nothing the
 * round trip would change); the round trip otherwise. `plain` is the round trip
 * unredacted (for data already JSON-shaped, `value` itself: it serializes the
 * same). The result may be logged without a copy (`sharable`) by a log whose
 * redactor is `shareAs` — `redact` itself, or one whose copy of what `redact`
 * made would be the same (the tool pipeline's `redact`, whose texts it then makes
 * well-formed: a repaired half pair is no secret).
 */
export function toFrozenLoggable(value: unknown, redact: Redact, shareAs: Redact = redact): Loggable {
  if (value === undefined) return { ok: true, value: undefined, plain: undefined };
  const direct = frozenJsonShaped(value, redact, []);
  if (direct !== NOT_JSON_SHAPED) {
    if (typeof direct === 'object' && direct !== null) rememberLoggable(direct, shareAs);
    return { ok: true, value: direct, plain: value };
  }
  let parsed: unknown;
  try {
    const text = JSON.stringify(value);
    // A function or symbol at the top level stringifies to undefined.
    if (text === undefined) return { ok: false, reason: `a ${typeof value} is not JSON data` };
    parsed = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
  const frozen = copy(parsed, { root: 'value', keys: [], ancestors: [], redact });
  if (typeof frozen === 'object' && frozen !== null) rememberLoggable(frozen, shareAs);
  return { ok: true, value: frozen, plain: parsed };
}

const NOT_JSON_SHAPED = Symbol('not JSON-shaped');

/** The JSON-shaped fast path of `toFrozenLoggable`: NOT_JSON_SHAPED for anything the round trip would change. */
function frozenJsonShaped(value: unknown, redact: Redact, ancestors: object[]): unknown {
  switch (typeof value) {
    case 'string':
      return redact(value);
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : NOT_JSON_SHAPED;
    case 'object':
      break;
    default:
      return NOT_JSON_SHAPED;
  }
  if (value === null) return null;
  if (ancestors.includes(value) || (value as { toJSON?: unknown }).toJSON !== undefined) return NOT_JSON_SHAPED;
  const proto = Object.getPrototypeOf(value);
  if (proto === Array.prototype) {
    const array = value as unknown[];
    if (Object.keys(array).length !== array.length) return NOT_JSON_SHAPED;
    ancestors.push(array);
    const out = new Array<unknown>(array.length);
    for (let i = 0; i < array.length; i++) {
      const v = frozenJsonShaped(array[i], redact, ancestors);
      if (v === NOT_JSON_SHAPED) return NOT_JSON_SHAPED;
      out[i] = v;
    }
    ancestors.pop();
    return Object.freeze(out);
  }
  if (proto !== Object.prototype && proto !== null) return NOT_JSON_SHAPED;
  ancestors.push(value);
  const out: Record<string, unknown> = {};
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    // JSON.parse makes `__proto__` an own key, plain assignment would not: the round trip keeps it right.
    if (key === '__proto__') return NOT_JSON_SHAPED;
    const raw = (value as Record<string, unknown>)[key];
    const v = typeof raw === 'string' ? redactUnder(key, raw, redact) : frozenJsonShaped(raw, redact, ancestors);
    if (v === NOT_JSON_SHAPED) return NOT_JSON_SHAPED;
    out[redact(key)] = v;
  }
  ancestors.pop();
  return Object.freeze(out);
}

/**
 * For log/builders.ts: a payload a builder wrote and froze, every field checked
 * as `toFrozenPlainData` checks it, is remembered like one this function returned
 * (a store re-checking the batch gets it back as it is).
 */
export function rememberChecked(value: object): void {
  recent[recentNext] = value;
  recentNext = (recentNext + 1) % RECENT_SIZE;
}

/**
 * The last values this function returned. Each is a frozen deep copy that passed
 * every check, so it cannot have changed: handed back (a store re-checking the
 * batch the log just produced), it is returned as it is — an equal copy would be
 * all the work again. A small ring, not a WeakSet: adding to a WeakSet costs about
 * as much as the copy it would save, and a store sees a batch right after the log
 * made it. It keeps at most RECENT_SIZE values alive.
 */
const RECENT_SIZE = 64;
const recent: object[] = [];
let recentNext = 0;

/** Is `value` in `recent`? Newest first: a store re-checks a batch right after the log made it. */
function isRecent(value: object): boolean {
  for (let n = 1; n <= RECENT_SIZE; n++) if (recent[(recentNext - n + RECENT_SIZE) % RECENT_SIZE] === value) return true;
  return false;
}

interface Walk {
  readonly root: string;
  /** Object keys (strings) and array indexes (numbers) from the root to the current value. */
  readonly keys: (string | number)[];
  /** The objects being copied, outermost first (cycle check; payloads are shallow). */
  readonly ancestors: object[];
  /** Applied to every string, keys included (the log's redactor). */
  readonly redact: ((text: string) => string) | undefined;
}

function pathOf(walk: Walk): string {
  let out = walk.root;
  for (const key of walk.keys) out += typeof key === 'number' ? `[${key}]` : `.${key}`;
  return out;
}

function copy(value: unknown, walk: Walk): unknown {
  switch (typeof value) {
    case 'string':
      return walk.redact ? walk.redact(value) : value;
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new LogAppendError(pathOf(walk), `${String(value)} is not JSON data`);
      return value;
    case 'undefined':
      throw new LogAppendError(pathOf(walk), 'undefined is not JSON data (omit the field instead)');
    case 'bigint':
      throw new LogAppendError(pathOf(walk), 'BigInt is not JSON data (use a string)');
    case 'function':
      throw new LogAppendError(pathOf(walk), 'a function is not JSON data');
    case 'symbol':
      throw new LogAppendError(pathOf(walk), 'a symbol is not JSON data');
    case 'object':
      break;
  }
  if (value === null) return null;
  const obj = value as object;
  const ancestors = walk.ancestors;
  if (ancestors.includes(obj)) throw new LogAppendError(pathOf(walk), 'cycle: this object contains itself');

  if (Array.isArray(obj)) {
    if (Object.keys(obj).length !== obj.length) {
      throw new LogAppendError(pathOf(walk), 'array has holes or extra properties');
    }
    ancestors.push(obj);
    // A plain array whatever the input's class (no species), read index by index.
    const out = new Array<unknown>(obj.length);
    for (let i = 0; i < obj.length; i++) out[i] = child(obj[i], i, walk);
    ancestors.pop();
    return Object.freeze(out);
  }

  const proto = Object.getPrototypeOf(obj);
  if (proto !== Object.prototype && proto !== null) {
    const name = (proto && proto.constructor && proto.constructor.name) || 'unknown class';
    throw new LogAppendError(pathOf(walk), `an instance of ${name} is not plain JSON data`);
  }
  if (Object.getOwnPropertySymbols(obj).length > 0) {
    throw new LogAppendError(pathOf(walk), 'symbol-keyed properties are not JSON data');
  }
  ancestors.push(obj);
  // The spread reads each own enumerable property once; what it read is then
  // checked, and nested objects are replaced by their own frozen copies. Keys are
  // only needed for a value that is not a plain leaf (same order as the values).
  // (A spread defines `__proto__` as an own key, like any other: keys stay data.)
  let out: Record<string, unknown> = { ...obj };
  const values = Object.values(out);
  const redact = walk.redact;
  let keys: string[] | undefined;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) continue;
    if (typeof v === 'string' && !redact) continue;
    keys ??= Object.keys(out);
    const key = keys[i]!;
    const checked = typeof v === 'string' ? redactUnder(key, v, redact!) : child(v, key, walk);
    if (checked !== v) out[key] = checked;
  }
  if (redact) out = withRedactedKeys(out, keys ?? Object.keys(out), redact);
  ancestors.pop();
  return Object.freeze(out);
}

/** The object with its keys redacted: the same object when no key changes (nearly always), else a copy in the same order. */
function withRedactedKeys(object: Record<string, unknown>, keys: readonly string[], redact: (text: string) => string): Record<string, unknown> {
  let i = 0;
  while (i < keys.length && redact(keys[i]!) === keys[i]) i++;
  if (i === keys.length) return object;
  const out: Record<string, unknown> = {};
  for (const k of keys) Object.defineProperty(out, redact(k), { value: object[k], writable: true, enumerable: true, configurable: true });
  return out;
}

/** A property or element: leaves that are fine as they are return at once. */
function child(value: unknown, key: string | number, walk: Walk): unknown {
  if (typeof value === 'string') return walk.redact ? walk.redact(value) : value;
  if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return value;
  walk.keys.push(key);
  const out = copy(value, walk);
  walk.keys.pop();
  return out;
}
