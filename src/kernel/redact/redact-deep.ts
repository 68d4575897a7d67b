/**
 * Redaction of structured data: every string inside plain JSON data, keys too.
 * Keys are copied as data whatever they are called — a `__proto__` key stays an
 * own property of the copy and never becomes its prototype.
 */
import { redactUnder } from './named-values.ts';
import type { Redactor } from './redactor.ts';

/** Redacts every string inside plain JSON data (keys too; a value by its key's name too: named-values.ts), returning a copy. */
export function redactDeep(value: unknown, redact: Redactor): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value)) {
      const v = (value as Record<string, unknown>)[k];
      setOwn(out, redact(k), typeof v === 'string' ? redactUnder(k, v, redact) : redactDeep(v, redact));
    }
    return out;
  }
  return value;
}

/** `target[key] = value` as a data property, also for `__proto__` (which plain assignment turns into a prototype change). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}
