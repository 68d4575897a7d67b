/**
 * The few assertions the EventStore contract needs, without a test framework:
 * the same cases run under vitest (`describeEventStoreContract`) and as cases of
 * `loopgate run` (`contract:store/<store>/<id>`). A failed assertion throws a
 * `StoreContractFailure` naming what was checked, what was expected and what came.
 */
import { isDeepStrictEqual } from 'node:util';

export class StoreContractFailure extends Error {
  override readonly name = 'StoreContractFailure';
  readonly what: string;
  readonly expected: string;
  readonly actual: string;
  constructor(what: string, expected: string, actual: string) {
    super(`${what}: expected ${expected}, got ${actual}`);
    this.what = what;
    this.expected = expected;
    this.actual = actual;
  }
}

const LIMIT = 200;

/** A short rendering of a value for a failure message. */
export function show(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > LIMIT ? `${text.slice(0, LIMIT)}… (${text.length} characters)` : text;
}

/** Deeply equal, prototypes and all (what vitest's `toStrictEqual` checks). */
export function same(what: string, actual: unknown, expected: unknown): void {
  if (!isDeepStrictEqual(actual, expected)) throw new StoreContractFailure(what, show(expected), show(actual));
}

export function truthy(what: string, condition: boolean, actual: unknown): void {
  if (!condition) throw new StoreContractFailure(what, 'to hold', show(actual));
}

type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * `promise` rejects with an instance of `type` whose message matches `message`
 * (when given); returns the error for further checks.
 */
export async function rejects(what: string, promise: Promise<unknown>, type: ErrorClass, message?: RegExp): Promise<Error> {
  let outcome: { value: unknown } | { error: unknown };
  try {
    outcome = { value: await promise };
  } catch (error) {
    outcome = { error };
  }
  const wanted = `a rejection with ${type.name}${message ? ` matching ${message}` : ''}`;
  if (!('error' in outcome)) throw new StoreContractFailure(what, wanted, `it resolved (${show(outcome.value)})`);
  const { error } = outcome;
  if (!(error instanceof type)) throw new StoreContractFailure(what, wanted, show(error));
  if (message && !message.test(error.message)) throw new StoreContractFailure(what, wanted, show(error));
  return error;
}

/** The given fields of an object have these values. */
export function fields(what: string, actual: unknown, expected: Readonly<Record<string, unknown>>): void {
  const got = (typeof actual === 'object' && actual !== null ? actual : {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(expected)) {
    if (!isDeepStrictEqual(got[key], value)) throw new StoreContractFailure(`${what}: ${key}`, show(value), show(got[key]));
  }
}
