/**
 * Arguments are frozen before execution (seed 000 §5): the pipeline, the UI
 * rendering and the log read the same object, so no reader may change what the
 * others see. Freezes plain objects and arrays in place; returns the same value.
 */
export function deepFreeze<T>(value: T): T {
  freeze(value, new Set());
  return value;
}

function freeze(value: unknown, seen: Set<object>): void {
  if (value === null || typeof value !== 'object' || seen.has(value)) return;
  seen.add(value);
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor && 'value' in descriptor) freeze(descriptor.value, seen);
  }
  Object.freeze(value);
}
