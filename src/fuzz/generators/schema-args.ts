/**
 * Arguments for a tool whose user gave the fuzzer none (`fuzz.args`): drawn from
 * its input schema, as a model fills a tool's schema — so the team's tool bodies
 * run under the fuzzer, not only its refusal of `{}`, and the provider's
 * odd-arguments mix (trailing commas, odd keys) starts from arguments that mean
 * something. The zod schema is read through its JSON Schema (`z.toJSONSchema`),
 * which states what a model is shown: objects with their required keys,
 * strings (formats, patterns, lengths), numbers and integers in their bounds,
 * booleans, enums and constants, arrays, unions, nullable. What it cannot state
 * (a transform, a recursive `$ref`) gives no arbitrary: the tool keeps the old
 * defaults. Values are kept small; a bound the draw misses is an invalid
 * argument, which the fuzzer wants some of anyway.
 */
import fc from 'fast-check';
import { z } from 'zod';

type JsonSchema = { readonly [key: string]: unknown };

/** Deeper than this, a value is `null`. */
const MAX_DEPTH = 5;
/** Numbers' bounds when the schema sets none. */
const SPAN = 1_000;

/** An arbitrary of the values `input` describes, or undefined where its JSON Schema cannot say. */
export function argsFromSchema(input: z.ZodType): fc.Arbitrary<unknown> | undefined {
  let schema: unknown;
  try {
    schema = z.toJSONSchema(input, { io: 'input', unrepresentable: 'throw' });
  } catch {
    return undefined;
  }
  return fromSchema(schema, 0);
}

function fromSchema(schema: unknown, depth: number): fc.Arbitrary<unknown> | undefined {
  if (schema === true || schema === undefined) return fc.constant(null);
  if (schema === null || typeof schema !== 'object' || depth > MAX_DEPTH) return depth > MAX_DEPTH ? fc.constant(null) : undefined;
  const s = schema as JsonSchema;
  if (s['$ref'] !== undefined) return undefined; // recursive: not drawn
  if (Object.hasOwn(s, 'const')) return fc.constant(s['const']);
  if (Array.isArray(s['enum']) && s['enum'].length > 0) return fc.constantFrom(...(s['enum'] as unknown[]));
  const alternatives = (s['anyOf'] ?? s['oneOf']) as unknown[] | undefined;
  if (Array.isArray(alternatives)) return oneOf(alternatives.map((a) => fromSchema(a, depth + 1)));
  if (Array.isArray(s['allOf']) && s['allOf'].length === 1) return fromSchema(s['allOf'][0], depth + 1);
  const type = s['type'];
  if (Array.isArray(type)) return oneOf(type.map((t) => fromSchema({ ...s, type: t }, depth)));
  switch (type) {
    case 'string':
      return stringOf(s);
    case 'integer':
      return fc.integer({ min: bound(s, 'min', true), max: bound(s, 'max', true) });
    case 'number':
      return fc.double({ min: bound(s, 'min', false), max: bound(s, 'max', false), noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = fromSchema(s['items'] ?? true, depth + 1);
      if (!items) return undefined;
      const minLength = typeof s['minItems'] === 'number' ? s['minItems'] : 0;
      const maxLength = Math.max(minLength, Math.min(typeof s['maxItems'] === 'number' ? s['maxItems'] : 3, minLength + 3));
      return fc.array(items, { minLength, maxLength });
    }
    case 'object': {
      const properties = (s['properties'] ?? {}) as Record<string, unknown>;
      const required = new Set(Array.isArray(s['required']) ? (s['required'] as string[]) : []);
      const fields: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, property] of Object.entries(properties)) {
        const field = fromSchema(property, depth + 1);
        if (!field) {
          if (required.has(key)) return undefined;
          continue;
        }
        fields[key] = field;
      }
      return fc.record(fields, { requiredKeys: Object.keys(fields).filter((key) => required.has(key)) });
    }
    default:
      return undefined;
  }
}

function oneOf(arbitraries: readonly (fc.Arbitrary<unknown> | undefined)[]): fc.Arbitrary<unknown> | undefined {
  const known = arbitraries.filter((a): a is fc.Arbitrary<unknown> => a !== undefined);
  return known.length === 0 ? undefined : known.length === 1 ? known[0] : fc.oneof(...known);
}

function stringOf(s: JsonSchema): fc.Arbitrary<unknown> {
  const minLength = typeof s['minLength'] === 'number' ? s['minLength'] : 0;
  const maxLength = Math.max(minLength, Math.min(typeof s['maxLength'] === 'number' ? s['maxLength'] : 24, minLength + 24));
  switch (s['format']) {
    case 'email':
      return fc.emailAddress();
    case 'uuid':
      return fc.uuid();
    case 'date-time':
      return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'date':
      return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    case 'uri':
    case 'url':
      return fc.webUrl();
  }
  if (typeof s['pattern'] === 'string') {
    try {
      return fc.stringMatching(new RegExp(s['pattern'])).filter((t) => t.length >= minLength && t.length <= Math.max(maxLength, minLength + 64));
    } catch {
      // A pattern JavaScript cannot compile: plain strings.
    }
  }
  return fc.string({ minLength, maxLength });
}

/** A number's bound: the schema's (an exclusive one moved inside for integers), else ±SPAN around the other. */
function bound(s: JsonSchema, side: 'min' | 'max', integer: boolean): number {
  const inclusive = s[side === 'min' ? 'minimum' : 'maximum'];
  const exclusive = s[side === 'min' ? 'exclusiveMinimum' : 'exclusiveMaximum'];
  const step = side === 'min' ? 1 : -1;
  if (typeof inclusive === 'number') return integer ? (side === 'min' ? Math.ceil(inclusive) : Math.floor(inclusive)) : inclusive;
  if (typeof exclusive === 'number') {
    if (integer) return side === 'min' ? Math.floor(exclusive) + 1 : Math.ceil(exclusive) - 1;
    return exclusive + step * Math.max(Number.EPSILON, Math.abs(exclusive) * 1e-9);
  }
  const other = s[side === 'min' ? 'maximum' : 'minimum'] ?? s[side === 'min' ? 'exclusiveMaximum' : 'exclusiveMinimum'];
  if (typeof other === 'number') return side === 'min' ? Math.min(other, 0) - SPAN : Math.max(other, 0) + SPAN;
  return side === 'min' ? -SPAN : SPAN;
}
