import { LogAppendError } from './errors.ts';

/**
 * Validates that `value` is plain JSON data and returns a frozen deep copy, in one
 * pass: each property is read exactly once and the value read is the value
 * stored, so a getter cannot show validation one value and storage another.
 *
 * Rejected: functions, symbols, `undefined`, `NaN` and the infinities, `BigInt`,
 * class instances (anything whose prototype is not Object.prototype or null, and
 * arrays with extra or missing entries), and cycles.
 */
export function toFrozenPlainData(value: unknown, path = 'payload'): unknown {
  return copy(value, path, new Set());
}

function copy(value: unknown, path: string, ancestors: Set<object>): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new LogAppendError(path, `${String(value)} is not JSON data`);
      return value;
    case 'undefined':
      throw new LogAppendError(path, 'undefined is not JSON data (omit the field instead)');
    case 'bigint':
      throw new LogAppendError(path, 'BigInt is not JSON data (use a string)');
    case 'function':
      throw new LogAppendError(path, 'a function is not JSON data');
    case 'symbol':
      throw new LogAppendError(path, 'a symbol is not JSON data');
    case 'object':
      break;
  }
  if (value === null) return null;
  const obj = value as object;
  if (ancestors.has(obj)) throw new LogAppendError(path, 'cycle: this object contains itself');

  if (Array.isArray(obj)) {
    const keys = Object.keys(obj);
    if (keys.length !== obj.length) {
      throw new LogAppendError(path, 'array has holes or extra properties');
    }
    ancestors.add(obj);
    const out = new Array<unknown>(obj.length);
    for (let i = 0; i < obj.length; i++) out[i] = copy(obj[i], `${path}[${i}]`, ancestors);
    ancestors.delete(obj);
    return Object.freeze(out);
  }

  const proto = Object.getPrototypeOf(obj);
  if (proto !== Object.prototype && proto !== null) {
    const name = (proto && proto.constructor && proto.constructor.name) || 'unknown class';
    throw new LogAppendError(path, `an instance of ${name} is not plain JSON data`);
  }
  if (Object.getOwnPropertySymbols(obj).length > 0) {
    throw new LogAppendError(path, 'symbol-keyed properties are not JSON data');
  }
  ancestors.add(obj);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(obj)) {
    const child = (obj as Record<string, unknown>)[key];
    out[key] = copy(child, `${path}.${key}`, ancestors);
  }
  ancestors.delete(obj);
  return Object.freeze(out);
}
