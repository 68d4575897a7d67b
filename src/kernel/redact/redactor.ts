/**
 * Secret redaction: what the model, the log, the trace, the host's responses and
 * the reports see. Secrets never reach any of them, in any form.
 *
 * Two sources: credential shapes common enough to catch by pattern (the rule set
 * in secret-rules.ts), and exact values the host knows are secret (the provider
 * API key, values a scenario or an agent names) — those also in their encoded
 * forms (secret-forms.ts: URL-encoded, `\u`-escaped, base64, hex).
 *
 * A redactor is a function of one text. The ones made here also say where the
 * secrets are (`find`) and how long the longest form is (`longest`): what a stream
 * needs to redact across chunk boundaries (stream.ts).
 */
import { formsOf, MAX_INVISIBLE_RUN, MIN_SECRET_LENGTH, mayHoldEscapes, mayHoldInvisibles, mayHoldSeparators, type SecretForms } from './secret-forms.ts';
import { REDACTED } from './redacted.ts';
import { pieceSpans, secretPieceLength } from './secret-pieces.ts';
import { SECRET_RULES } from './secret-rules.ts';

export { REDACTED } from './redacted.ts';

/** A [start, end) range of a text. */
export type Span = readonly [number, number];

export interface Redactor {
  (text: string): string;
  /** Where the secrets in `text` are, sorted by start. Absent on a redactor written as a plain function. */
  readonly find?: (text: string) => Span[];
  /** The most characters one secret can take in any form the redactor knows (0 with no exact secrets). */
  readonly longest?: number;
}

/** Credential shapes common enough to catch by pattern (the patterns of SECRET_RULES). */
export const DEFAULT_SECRET_PATTERNS: readonly RegExp[] = Object.freeze(SECRET_RULES.map((r) => r.pattern));

/** The shortest text any default rule matches. */
const DEFAULT_MIN_LENGTH = Math.min(...SECRET_RULES.map((r) => r.minLength));

/** Strings up to this long are remembered by a redactor, up to MEMO_ENTRIES of them (then it starts afresh). */
const MEMO_MAX_LENGTH = 256;
const MEMO_ENTRIES = 4_096;

/** Environment variable names whose values are treated as secrets. */
const SECRET_ENV_NAME = /(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)/i;
/** …unless the name ends in what it locates or configures (`OAUTH_TOKEN_URL`, `CREDENTIALS_PROVIDER`): no secret's value. */
const LOCATOR_ENV_NAME = /_(URL|URI|ENDPOINT|HOST|PORT|PROVIDER|FILE|PATH|DIR|NAME|TYPE|MODE|REGION|ISSUER|AUDIENCE|TTL|EXPIRY|ID)$/i;
/** A value of lower-case letters alone is a word (`postgres`, `password`, `environment`): redacting it garbles what users write. */
const PLAIN_WORD = /^[a-z]+$/;

/**
 * The values of the environment's credentials: variables named like a secret, 8 characters or more — not a name
 * ending in what it locates (`_URL`, `_PROVIDER`, `_PATH`, …) and not a plain lower-case word (outside probe 35, F3).
 */
export function secretsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= 8 && SECRET_ENV_NAME.test(name) && !LOCATOR_ENV_NAME.test(name) && !PLAIN_WORD.test(value)) out.push(value);
  }
  return out;
}

export interface RedactorOptions {
  /** Exact values to redact, in every form (shorter than 4 characters: ignored). */
  readonly secrets?: readonly string[];
  /** Default: DEFAULT_SECRET_PATTERNS. Global regexes. */
  readonly patterns?: readonly RegExp[];
}

export function createRedactor(options: RedactorOptions = {}): Redactor {
  const patterns = options.patterns ?? DEFAULT_SECRET_PATTERNS;
  // Longest first, so a secret that contains another is replaced whole.
  const secrets = [...new Set(options.secrets ?? [])].filter((s) => s.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
  const forms: SecretForms[] = secrets.map(formsOf);
  const escaped = forms.flatMap((f) => f.escaped);
  const separated = forms.flatMap((f) => f.separated);
  const invisible = forms.flatMap((f) => f.invisible);
  const cores = [...new Set(forms.flatMap((f) => [...f.base64, ...f.hex, ...f.cased]))].sort((a, b) => b.length - a.length);
  const anyPattern = sharedUnionOf(patterns);
  // Half a secret gives half of it away: runs of half a secret or more go too (secret-pieces.ts).
  const pieces = secrets.flatMap((secret) => pieceSpans(secret) ?? []);
  // Texts shorter than every secret's shortest piece and every shape need no scan at all.
  const shortest = Math.min(
    secrets.length ? Math.min(...secrets.map((secret) => secretPieceLength(secret) ?? secret.length)) : Number.POSITIVE_INFINITY,
    patterns === DEFAULT_SECRET_PATTERNS ? DEFAULT_MIN_LENGTH : patterns.length ? 1 : Number.POSITIVE_INFINITY,
  );

  // The log passes every string of every event through here, and most of them
  // recur (block types, statuses, tool names, ids): short ones are remembered.
  const memo = new Map<string, string>();
  const redact = (text: string): string => {
    if (text.length < shortest) return text;
    if (text.length > MEMO_MAX_LENGTH) return scan(text);
    let out = memo.get(text);
    if (out === undefined) {
      if (memo.size >= MEMO_ENTRIES) memo.clear();
      out = scan(text);
      memo.set(text, out);
    }
    return out;
  };

  const scan = (text: string): string => {
    let out = text;
    for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    if (escaped.length && mayHoldEscapes(out)) for (const pattern of escaped) out = out.replace(pattern, REDACTED);
    // Typed in groups (a card number, an IBAN): a separator between its characters.
    if (separated.length && mayHoldSeparators(out)) for (const pattern of separated) out = out.replace(pattern, REDACTED);
    // With characters no one sees between its own (a zero-width space, a soft hyphen).
    if (invisible.length && mayHoldInvisibles(out)) for (const pattern of invisible) out = out.replace(pattern, REDACTED);
    for (const core of cores) if (out.includes(core)) out = out.split(core).join(REDACTED);
    if (pieces.length) out = withoutPieces(out, pieces);
    // Almost every string has no secret: one scan for all the shapes, instead of one per shape.
    if (anyPattern && !anyPattern.test(out)) return out;
    for (const pattern of patterns) {
      pattern.lastIndex = 0;
      if (pattern.test(out)) {
        pattern.lastIndex = 0;
        out = out.replace(pattern, REDACTED);
      }
    }
    return out;
  };

  const find = (text: string): Span[] => {
    const spans: [number, number][] = [];
    for (const secret of secrets) for (let i = text.indexOf(secret); i >= 0; i = text.indexOf(secret, i + 1)) spans.push([i, i + secret.length]);
    for (const core of cores) for (let i = text.indexOf(core); i >= 0; i = text.indexOf(core, i + 1)) spans.push([i, i + core.length]);
    for (const piecesIn of pieces) for (const span of piecesIn(text)) spans.push(wholeCharacters(text, span));
    for (const pattern of [
      ...(mayHoldEscapes(text) ? escaped : []),
      ...(mayHoldSeparators(text) ? separated : []),
      ...(mayHoldInvisibles(text) ? invisible : []),
      ...patterns,
    ]) {
      for (const m of text.matchAll(globalOf(pattern))) if (m[0].length > 0) spans.push([m.index, m.index + m[0].length]);
    }
    spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    return spans.filter((s, i) => i === 0 || s[0] !== spans[i - 1]![0] || s[1] !== spans[i - 1]![1]);
  };

  // An escaped character takes up to 6 characters (`\u00HH`); base64 takes 4 for 3; a character and the invisible ones
  // after it up to 7 (MAX_INVISIBLE_RUN astral ones, two units each).
  const longest = secrets.length ? secrets[0]!.length * (1 + 2 * MAX_INVISIBLE_RUN) : 0;
  return Object.assign(redact, { find, longest });
}

/**
 * A run widened to whole characters: a piece of a secret counted in UTF-16 code units may start or end inside a
 * surrogate pair (🐶 and 🐴 share their first half), and cut there it would leave half a pair behind — no text, which
 * a provider refuses and the history would carry on (outside probe 35, F7).
 */
function wholeCharacters(text: string, [from, to]: [number, number]): [number, number] {
  const low = (i: number) => {
    const c = text.charCodeAt(i);
    return c >= 0xdc00 && c <= 0xdfff;
  };
  const high = (i: number) => {
    const c = text.charCodeAt(i);
    return c >= 0xd800 && c <= 0xdbff;
  };
  return [from > 0 && low(from) && high(from - 1) ? from - 1 : from, to < text.length && low(to) && high(to - 1) ? to + 1 : to];
}

/** `text` with every piece of a secret replaced by REDACTED; overlapping and touching runs go as one. */
function withoutPieces(text: string, pieces: readonly ((text: string) => [number, number][])[]): string {
  let spans: [number, number][] | undefined;
  for (const piecesIn of pieces) {
    const found = piecesIn(text);
    // One at a time: a text with tens of thousands of runs (a long run of one character a secret repeats) would
    // overflow the call stack spread into one push (review of stop 57, L4).
    if (found.length) for (const span of found) (spans ??= []).push(wholeCharacters(text, span));
  }
  if (!spans) return text;
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  let out = '';
  let at = 0;
  let any = false;
  for (const [from, to] of spans) {
    if (any && from <= at) {
      if (to > at) at = to;
      continue;
    }
    out += text.slice(at, from) + REDACTED;
    at = to;
    any = true;
  }
  return out + text.slice(at);
}

/**
 * The union of the default patterns, built once: a host or harness builds a
 * redactor per conversation (or per case), and compiling the union is most of
 * what that costs. Only for the default list, which nothing can change (a list
 * passed in is read afresh each time). The union has no `g` or `y` flag, so
 * sharing it shares no `lastIndex` state.
 */
let defaultUnion: { readonly union: RegExp | undefined } | undefined;
function sharedUnionOf(patterns: readonly RegExp[]): RegExp | undefined {
  if (patterns !== DEFAULT_SECRET_PATTERNS) return unionOf(patterns);
  defaultUnion ??= { union: unionOf(patterns) };
  return defaultUnion.union;
}

function globalOf(pattern: RegExp): RegExp {
  return pattern.global ? pattern : new RegExp(pattern.source, `${pattern.flags}g`);
}

/**
 * One regex matching wherever any of `patterns` matches, used as a pre-check: if
 * it finds nothing, no pattern would. Only built when that holds by construction —
 * the same flags (besides `g`) and no back-references, whose group numbers would
 * shift in the union; otherwise undefined and every pattern runs.
 */
function unionOf(patterns: readonly RegExp[]): RegExp | undefined {
  if (patterns.length < 2) return undefined;
  const flags = patterns[0]!.flags.replace('g', '');
  if (flags.includes('y')) return undefined;
  for (const p of patterns) {
    if (p.flags.replace('g', '') !== flags || /\\[1-9]|\\k</.test(p.source)) return undefined;
  }
  try {
    return new RegExp(patterns.map((p) => `(?:${p.source})`).join('|'), flags);
  } catch {
    return undefined; // e.g. the same group name in two patterns
  }
}
