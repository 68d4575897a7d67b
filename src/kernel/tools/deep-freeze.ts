/**
 * Arguments are frozen before execution (seed 000 §5): the pipeline, the UI
 * rendering and the log read the same object, so no reader may change what the
 * others see. Freezes plain objects and arrays in place; returns the same value.
 */
export function deepFreeze<T>(value: T): T {
  freeze(value, undefined);
  return value;
}

/** `seen` (the objects already met, against cycles and shared objects) is only made once an object holds another. */
function freeze(value: unknown, seen: Set<object> | undefined): void {
  if (value === null || typeof value !== 'object' || seen?.has(value)) return;
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor === undefined || !('value' in descriptor)) continue;
    const child: unknown = descriptor.value;
    if (child === null || typeof child !== 'object') continue;
    if (seen === undefined) {
      seen = new Set();
      seen.add(value);
    }
    seen.add(value);
    freeze(child, seen);
  }
  Object.freeze(value);
}
