/**
 * Regular expressions the user wrote (`expect.assert` `matches`, `--grep`),
 * run under a time bound. JavaScript's backtracking engine takes exponential
 * time on patterns such as `^(a+)+$` against a long enough text, and nothing
 * else interrupts a running match: the test runs in `node:vm` with a `timeout`,
 * whose watchdog stops it. On the normal path that costs one watchdog per call
 * (a fraction of a millisecond), so a whole list of texts is tested in one call.
 */
import { createContext, Script, type Context } from 'node:vm';
import { InputError } from '../kernel/index.ts';

/** Far above what any sensible pattern takes over any text loopgate matches (microseconds). */
export const REGEX_TIME_LIMIT_MS = 1_000;

/** A pattern that did not finish within the bound. */
export class RegexTimeoutError extends InputError {
  readonly limitMs: number;
  constructor(pattern: RegExp, limitMs: number) {
    super(`the pattern ${String(pattern)} did not finish matching within ${limitMs} ms (it backtracks without end: simplify it)`);
    this.name = 'RegexTimeoutError';
    this.limitMs = limitMs;
  }
}

const TEST_ALL = new Script('texts.map((text) => { pattern.lastIndex = 0; return pattern.test(text); })', { filename: 'loopgate-bounded-regex' });
let context: Context | undefined;

/** Whether `pattern` matches each text, all within `limitMs` together; `RegexTimeoutError` past it. */
export function testAllWithin(pattern: RegExp, texts: readonly string[], limitMs: number = REGEX_TIME_LIMIT_MS): boolean[] {
  context ??= createContext({});
  context.pattern = pattern;
  context.texts = texts;
  try {
    return Array.from(TEST_ALL.runInContext(context, { timeout: limitMs }) as ArrayLike<boolean>, Boolean);
  } catch (error) {
    if ((error as NodeJS.ErrnoException | undefined)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new RegexTimeoutError(pattern, limitMs);
    throw error;
  } finally {
    context.pattern = undefined;
    context.texts = undefined;
  }
}

/** Whether `pattern` matches `text` within `limitMs`; `RegexTimeoutError` past it. */
export function testWithin(pattern: RegExp, text: string, limitMs: number = REGEX_TIME_LIMIT_MS): boolean {
  return testAllWithin(pattern, [text], limitMs)[0] === true;
}
