/**
 * The first of the two argument layers (seed 000 §5): lenient parsing. It never
 * throws. A model's arguments are sometimes not valid JSON; this layer repairs only
 * what cannot change their meaning and otherwise hands back the raw text, so the
 * strict layer (validate.ts) or the pipeline can tell the model what was wrong.
 *
 * Repaired: a markdown code fence around the JSON, trailing commas before `}` or
 * `]`, and one JSON object embedded in prose. Never repaired: truncated JSON
 * (a `max_tokens` cut must not run as a smaller call), quotes, unquoted keys, or a
 * non-object top-level value (strict validation reports that).
 */

export type Repair = 'code_fence' | 'trailing_comma' | 'embedded_object';

export type LenientParseResult =
  | { readonly ok: true; readonly value: unknown; readonly repairs: readonly Repair[] }
  | { readonly ok: false; readonly raw: string; readonly reason: string };

/**
 * `args` is what the provider adapter produced: already-parsed data, or the raw
 * argument text. `rawArgs` is consulted only when `args` is absent.
 */
export function lenientParse(args: unknown, rawArgs?: string): LenientParseResult {
  if (args === undefined) return rawArgs === undefined ? ok({}) : parseText(rawArgs);
  if (typeof args === 'string') return parseText(args);
  return ok(args);
}

function parseText(raw: string): LenientParseResult {
  try {
    if (raw.trim() === '') return ok({});
    const direct = tryJson(raw);
    if (direct.ok) return ok(direct.value);

    const repairs: Repair[] = [];
    let text = raw.trim();
    const unfenced = stripCodeFence(text);
    if (unfenced !== undefined) {
      text = unfenced;
      repairs.push('code_fence');
      const parsed = tryJson(text);
      if (parsed.ok) return ok(parsed.value, repairs);
    }

    const noCommas = removeTrailingCommas(text);
    if (noCommas !== text) {
      const parsed = tryJson(noCommas);
      if (parsed.ok) return ok(parsed.value, [...repairs, 'trailing_comma']);
    }

    const embedded = findEmbeddedObjects(text);
    if (embedded.length === 1 && isProse(text.replace(embedded[0]!, ''))) {
      const candidate = embedded[0]!;
      const parsed = tryJson(candidate);
      if (parsed.ok) return ok(parsed.value, [...repairs, 'embedded_object']);
      const cleaned = removeTrailingCommas(candidate);
      const parsedClean = tryJson(cleaned);
      if (parsedClean.ok) return ok(parsedClean.value, [...repairs, 'embedded_object', 'trailing_comma']);
    }
    if (embedded.length > 1) {
      return fail(raw, `found ${embedded.length} separate JSON objects in the text; expected exactly one`);
    }
    return fail(raw, direct.reason);
  } catch (error) {
    // Defensive: nothing above should throw, and this layer must not.
    return fail(raw, error instanceof Error ? error.message : String(error));
  }
}

function ok(value: unknown, repairs: readonly Repair[] = []): LenientParseResult {
  return { ok: true, value, repairs };
}

function fail(raw: string, reason: string): LenientParseResult {
  return { ok: false, raw, reason };
}

function tryJson(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: `not valid JSON (${error instanceof Error ? error.message : String(error)})` };
  }
}

/** ```json\n{...}\n``` (language tag optional) → the inside; undefined when not fenced. */
function stripCodeFence(text: string): string | undefined {
  const match = /^```[A-Za-z0-9_-]*[ \t]*\r?\n([\s\S]*?)\r?\n?```$/.exec(text);
  return match ? match[1]!.trim() : undefined;
}

/** Drops commas followed (after whitespace) by `}` or `]`, outside strings only. */
export function removeTrailingCommas(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      out += ch;
      if (ch === '\\') {
        out += text[i + 1] ?? '';
        i++;
      } else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      inString = true;
      out += ch;
      continue;
    }
    if (ch === ',') {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j]!)) j++;
      if (text[j] === '}' || text[j] === ']') continue;
    }
    out += ch;
  }
  return out;
}

/**
 * The text around an embedded object must be prose: any bracket outside it means
 * the object is part of a larger (possibly truncated) structure, and taking the
 * object alone would run a different call than the model wrote.
 */
function isProse(outside: string): boolean {
  return !/[[\]{}]/.test(outside);
}

/** Balanced top-level `{...}` spans in prose (string-aware); unbalanced ones are not returned. */
function findEmbeddedObjects(text: string): string[] {
  const found: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (depth > 0 && inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (depth > 0 && ch === '"') inString = true;
    else if (ch === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === '}' && depth > 0) {
      depth--;
      if (depth === 0) found.push(text.slice(start, i + 1));
    }
  }
  return found;
}
