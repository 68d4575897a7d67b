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
  if (typeof value === 'object' && value !== null && !redact && recent.includes(value)) return value;
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
  return copy(value, { root, keys, ancestors: [], redact });
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
    const checked = child(v, key, walk);
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
