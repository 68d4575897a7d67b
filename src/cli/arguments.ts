/**
 * Command-line arguments, checked while they are parsed — before any command
 * runs or writes anything. Nothing heavy is imported: `--help` loads this.
 *
 * - Every flag that takes a value must be given one: `run --seed` or
 *   `--reporter=` is an error naming the flag, never the default used silently.
 * - A flag of one value given twice (`--host loop --host production`) is
 *   `--host: given 2 times; give it once`, for every command and flag.
 * - An empty value (`--reporter ''`, `run ''`) is an error too, and a switch
 *   takes no value but `=true` or `=false` (`--markdown=maybe` was read as false).
 * - A number is checked against its stated range as it is parsed, and a bad one
 *   is quoted as typed (`--seed "abc"`), never as `NaN`.
 */
import type { Argv, CommandModule, Options } from 'yargs';

/** What the command line got wrong (an unknown flag, a missing or bad value): exit 2 before anything ran. */
export class ArgumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArgumentError';
  }
}

export interface NumberRange {
  /** Whole numbers only. */
  readonly integer?: boolean;
  readonly min: number;
  /** The smallest value is excluded (a timeout of 0 s means nothing). */
  readonly minExclusive?: boolean;
  readonly max?: number;
  /** What is expected, when the range alone does not say it well (`a positive number of seconds`). */
  readonly expected?: string;
  /** Values inside the range refused all the same (named in `expected`). */
  readonly except?: readonly number[];
}

/** The bounds of the counts and seeds the commands take (far above any real use; 1e99 is not a count). */
export const BOUNDS = {
  seed: { integer: true, min: 0, max: 0xffffffff },
  /** Cases run at once: more than the cases there are is harmless, more than this is a typo. */
  concurrency: { integer: true, min: 1, max: 256 },
  /** Live runs per scenario, each a paid call to a real provider. */
  repeat: { integer: true, min: 1, max: 1000 },
  /** Fuzz cases to generate (a long run takes --time). */
  fuzzRuns: { integer: true, min: 1, max: 10_000_000 },
  /** A seq of a conversation's log. */
  seq: { integer: true, min: 0, max: Number.MAX_SAFE_INTEGER },
  /** A response served with a body: 1xx has none to serve, nor have 204, 205 and 304 (a stack from undici: probe 64, F2). */
  httpStatus: {
    integer: true,
    min: 200,
    max: 599,
    except: [204, 205, 304],
    expected: 'an integer from 200 to 599 but 204, 205 and 304 (a status whose response has a body)',
  },
  /** A time limit: a millisecond at least (0.0000001 s ran as "within 0 ms"). */
  seconds: { min: 0.001, max: 365 * 24 * 3600, expected: 'a number of seconds, at least 0.001 (a millisecond)' },
  /** A relative increase tolerated against a baseline (0.2 = 20 %). */
  threshold: { min: 0 },
} as const satisfies Record<string, NumberRange>;

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;
const DIGITS = /^[+-]?\d+$/;

function expectedOf(range: NumberRange): string {
  if (range.expected) return range.expected;
  const kind = range.integer ? 'an integer' : 'a number';
  if (range.max === undefined) return `${kind} ${range.minExclusive ? '>' : '≥'} ${range.min}`;
  return range.minExclusive ? `${kind} above ${range.min}, at most ${range.max}` : `${kind} from ${range.min} to ${range.max}`;
}

/** A value as the user typed it: bare when it reads as a number, quoted otherwise. */
function shown(text: string): string {
  return NUMBER.test(text) ? text : JSON.stringify(text);
}

/**
 * `value` (a number, or the text typed) read against `range`; the message
 * naming the flag and what was typed when it is not a number in the range.
 */
export function readNumber(flag: string, value: number | string, range: NumberRange): { value: number } | { problem: string } {
  const text = String(value);
  if (text === '') return { problem: `--${flag} "": needs a value, not an empty string` };
  const n = typeof value === 'number' ? value : NUMBER.test(text.trim()) ? Number(text) : Number.NaN;
  const fits =
    Number.isFinite(n) &&
    (!range.integer || Number.isInteger(n)) &&
    (range.minExclusive ? n > range.min : n >= range.min) &&
    (range.max === undefined || n <= range.max) &&
    !range.except?.includes(n);
  if (!fits) return { problem: `--${flag} ${shown(text)}: expected ${expectedOf(range)}` };
  // A count or a seed is written in digits: 1e3, 1.0 or " 7" would run as 1000, 1 and 7 while 0x10 is refused.
  if (range.integer && typeof value === 'string' && !DIGITS.test(text))
    return { problem: `--${flag} ${shown(text)}: expected ${expectedOf(range)}, written in digits` };
  return { value: n };
}

/** A numeric flag: declared as a string, so what was typed can be quoted; read and range-checked as it is parsed. */
export function numberOption(flag: string, range: NumberRange, options: { describe: string; default?: number }): Options {
  return {
    type: 'string',
    describe: `${options.describe} [${expectedOf(range)}]`,
    ...(options.default !== undefined ? { default: options.default } : {}),
    coerce: (value: unknown) => {
      if (value === undefined) return undefined;
      if (Array.isArray(value)) throw new ArgumentError(repeated(flag, value.length));
      const read = readNumber(flag, value as number | string, range);
      if ('problem' in read) throw new ArgumentError(read.problem);
      return read.value;
    },
  };
}

/** What every flag of one value says when it is given more than once. */
function repeated(flag: string, times: number): string {
  return `--${flag}: given ${times} times; give it once`;
}

/** The parts of yargs' option table the checks read (yargs keeps it untyped). */
interface OptionTable {
  readonly key: Record<string, boolean>;
  readonly boolean: readonly string[];
  readonly array: readonly string[];
  readonly alias: Record<string, readonly string[]>;
}

/** The positionals of a command string (`decode <file>`, `run [paths..]`): they are no flags. */
function positionals(command: string | readonly string[] | undefined): Set<string> {
  const text = Array.isArray(command) ? command.join(' ') : String(command ?? '');
  return new Set([...text.matchAll(/[<[]([^\s<>[\].]+)(?:\.\.)?[>\]]/g)].map((m) => m[1]!));
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/**
 * The command with every flag's value checked as it is parsed (see the top of
 * this file). `argv` is the raw command line: a switch's `=value` can be seen
 * only there.
 */
export function withCheckedValues<T, U>(command: CommandModule<T, U>, argv: readonly string[]): CommandModule<T, U> {
  const builder = command.builder;
  return {
    ...command,
    builder: (y: Argv<T>) => {
      const built = (typeof builder === 'function' ? builder(y) : builder ? y.options(builder) : y) as Argv<U>;
      const table = (built as unknown as { getOptions(): OptionTable }).getOptions();
      const skip = positionals(command.command);
      const switches = new Set<string>();
      for (const name of table.boolean) for (const n of [name, ...(table.alias[name] ?? [])]) switches.add(kebab(n));
      const lists = new Set(table.array);
      const valued = Object.keys(table.key).filter((k) => !switches.has(kebab(k)) && !skip.has(k) && k !== 'help' && k !== 'version');
      return built.requiresArg(valued).check((parsed) => {
        for (const token of argv.slice(0, argv.includes('--') ? argv.indexOf('--') : argv.length)) {
          const match = /^--(?:no-)?([^=]+)=(.*)$/s.exec(token);
          if (match && switches.has(kebab(match[1]!)) && match[2] !== 'true' && match[2] !== 'false')
            throw new ArgumentError(`${token}: a switch takes no value (or =true, =false)`);
        }
        // A flag of one value given twice (`--host loop --host production`): yargs makes it a list no command expects.
        for (const key of valued) {
          const value = (parsed as Record<string, unknown>)[key];
          if (Array.isArray(value) && !lists.has(key)) throw new ArgumentError(repeated(key, value.length));
        }
        for (const key of valued) {
          const value = (parsed as Record<string, unknown>)[key];
          if (value === '' || (Array.isArray(value) && value.includes(''))) throw new ArgumentError(`--${key} "": needs a value, not an empty string`);
        }
        // An empty path is no path (`run ''` took the working directory).
        for (const key of skip) {
          const value = (parsed as Record<string, unknown>)[key];
          if (value === '' || (Array.isArray(value) && value.includes(''))) throw new ArgumentError(`"": an empty ${key} argument; give a path`);
        }
        return true;
      }) as Argv<U>;
    },
  };
}

/** yargs' own complaints, in loopgate's words. */
export function argumentMessage(message: string): string {
  const missing = /^Not enough arguments following: (.+)$/.exec(message);
  if (missing) return `--${missing[1]}: needs a value`;
  const unknown = /^Unknown arguments?: (.+)$/.exec(message);
  if (unknown) {
    // yargs lists a kebab-case flag twice, as typed and in camelCase: name it once, as typed.
    const names = unknown[1]!.split(', ');
    const once = [...new Set(names.filter((name) => !names.some((other) => other !== name && camelCase(other) === name)))];
    return `Unknown argument${once.length === 1 ? '' : 's'}: ${once.join(', ')}`;
  }
  return message;
}

function camelCase(name: string): string {
  return name.replace(/-+([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
