/**
 * A loop adapter's options as a config gives them (JavaScript has no type check):
 * an object of the keys the adapter knows, or a TypeError naming what it got —
 * the config load turns it into one exit-2 line. Never silently ignored.
 */

/** What a value is, in words, for the errors below. */
export function shapeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value;
}

/** Whether a value is a plain object (`{ … }`), not a list, a class instance or null. */
export function isPlainObject(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Throws unless `given` is a plain object whose keys are all `known`. `adapter` names the function in the message. */
export function checkAdapterOptions(adapter: string, given: unknown, known: readonly string[]): void {
  if (!isPlainObject(given)) throw new TypeError(`${adapter}: expected { ${known.join(', ')} }, got ${shapeOf(given)}`);
  for (const key of Object.keys(given as object))
    if (!known.includes(key)) throw new TypeError(`${adapter}: unknown option ${JSON.stringify(key)}; known: ${known.join(', ')}`);
}
