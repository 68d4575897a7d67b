/**
 * Tool arguments a model may send that are still data: keys named `__proto__`
 * and `constructor` (which a careless copy turns into a prototype), and nesting
 * far deeper than any schema (which overflows a recursive walker). The loop must
 * answer with the tool's result or INVALID_ARGUMENTS — never failed{internal}.
 * Deep nesting is sent as the raw argument text, as a provider sends it (a
 * scenario file cannot nest 3,000 levels). And the tool's own arguments as the
 * text a model writes, with a trailing comma before every closing bracket: the
 * lenient layer must repair it to the same call (arguments-read-as-sent). Half
 * the time that text's last string value ends in an escaped quote, a comma before
 * a closing bracket or a backslash: a repair scan that took `\"` for the string's
 * end would drop a comma inside the value (outside probe 13, plant Q13).
 */
import fc from 'fast-check';

/** `args` with `__proto__` and `constructor` own keys added (JSON.parse makes them own keys, as an SDK's parse does). */
export function withOddKeys(args: unknown): unknown {
  const base = args !== null && typeof args === 'object' && !Array.isArray(args) ? JSON.stringify(args).slice(1, -1) : '';
  return JSON.parse(`{${base}${base ? ',' : ''}"__proto__":{"admin":true},"constructor":{"prototype":{"polluted":true}}}`);
}

/** Raw argument text nesting objects `depth` levels deep. */
export function deeplyNested(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** `args` as JSON text with a comma before each `}` or `]` that closes a non-empty object or array. */
export function withTrailingCommas(args: unknown): unknown {
  const text = JSON.stringify(args);
  if (text === undefined) return args;
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      if (ch === '\\') {
        out += ch + text[i + 1];
        i++;
        continue;
      }
      if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if ((ch === '}' || ch === ']') && text[i - 1] !== '{' && text[i - 1] !== '[') out += ',';
    out += ch;
  }
  return out;
}

/** Tails for a string value that a trailing-comma repair must read as part of the string. */
export const STRING_TAILS = ['", }', ',]', '\\', 'LG", }X'] as const;

/** `args` with its last top-level string value ending in `tail` (the other fields kept valid); other args as they are. */
export function withStringTail(args: unknown, tail: string): unknown {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return args;
  const last = Object.keys(args).findLast((key) => typeof (args as Record<string, unknown>)[key] === 'string');
  return last === undefined ? args : { ...args, [last]: `${(args as Record<string, string>)[last]}${tail}` };
}

/**
 * `args` written as JSON text, then cut `by` characters short (at least one): a call the model finished with its
 * arguments unterminated. Some cuts a repair still reads (a missing closing brace); most it cannot, and the call must
 * keep the text as sent, to be refused naming the problem (outside probe 66, #21).
 */
export function cutJson(args: unknown, by: number): string {
  const text = JSON.stringify(args ?? {});
  return text.slice(0, Math.max(1, text.length - Math.max(1, by)));
}

/**
 * `args` as the first item of a JSON list whose second item, another copy, is cut `by` characters short: a whole
 * object inside a larger, unfinished structure, as a model that batched its calls into a list writes it when its text
 * is cut. No repair may take the object out and run it (outside probe 69, lenient-embedded-in-structure: a lenient
 * layer that did passed fuzz, which never sent an object inside brackets).
 */
export function insideCutList(args: unknown, by: number): string {
  const text = JSON.stringify(args ?? {});
  return `[${text}, ${text.slice(0, Math.max(1, text.length - Math.max(1, by)))}`;
}

/** Arguments as the tool's generator makes them, or — rarely — with odd keys, as text with trailing commas, inside a cut list, or nested past the limit. */
export function oddArgumentsArb(args: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { withCrossShrink: true },
    { weight: 20, arbitrary: args },
    { weight: 1, arbitrary: args.map(withOddKeys) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(args, fc.option(fc.constantFrom(...STRING_TAILS), { nil: undefined, freq: 2 }))
        .map(([a, tail]) => withTrailingCommas(tail === undefined ? a : withStringTail(a, tail))),
    },
    { weight: 1, arbitrary: fc.tuple(args, fc.integer({ min: 1, max: 12 })).map(([a, by]) => insideCutList(a, by)) },
    { weight: 1, arbitrary: fc.constantFrom(65, 3_000).map(deeplyNested) },
  );
}
