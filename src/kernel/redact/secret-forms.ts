/**
 * The forms a secret takes besides its literal one — URL-encoded (whole or
 * character by character, once or twice: `%2F` or `%252F`), JSON `\u`-escaped, base64 inside a longer value (at
 * each of the three byte alignments, standard and URL-safe), hex (lower or upper
 * case) — base64 and hex of its UTF-8 bytes, and of its latin1 bytes where each
 * character fits one, base64 of its UTF-16LE bytes (PowerShell's -EncodedCommand)
 * — and the secret upper- or lower-cased whole, for the redactor to
 * replace and for the leak checks to find. One definition for both: what the
 * checks look for is exactly what redaction removes.
 */
import { REDACTED } from './redacted.ts';

/** Below this, encoded forms are too short to tell from other text; the literal check still runs from 4 characters. */
export const MIN_ENCODED_LENGTH = 8;

/** Secrets shorter than this are not redacted (they would match ordinary words). */
export const MIN_SECRET_LENGTH = 4;

/**
 * The most secrets an agent (or a scenario with its agent) may declare: each is looked for in every form in every text,
 * through searches compiled for it, so the cost of a step grows with their number, and a few thousand ran a process
 * out of memory (outside probe 64, F20).
 */
export const MAX_SECRETS = 256;

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const hex2 = (code: number) => code.toString(16).padStart(2, '0');

/** The encoded forms of one secret, precomputed. */
export interface SecretForms {
  readonly secret: string;
  /**
   * The secret with any character written as itself, its UTF-8 bytes `%HH` or its UTF-16 units `\uHHHH`; none when
   * too short. One pattern per SEGMENT_CHARACTERS of a long secret (see `segmentsOf`); so are the two below.
   */
  readonly escaped: readonly RegExp[];
  /** The base64 characters that depend on the secret alone, at each alignment and alphabet, of each byte form. */
  readonly base64: readonly string[];
  /** Its UTF-8 bytes (and latin1 bytes, where each character fits one) in hex, lower and upper case (empty when too short). */
  readonly hex: readonly string[];
  /** The secret upper- and lower-cased whole, where that changes it (a proxy's normalised header, a key in capitals). */
  readonly cased: readonly string[];
  /** The secret with a separator (space, `-`, `.`) between any of its characters — a card number typed in groups; undefined under 12 characters or for a secret holding a separator. */
  readonly separated: readonly RegExp[];
  /** The secret with characters no one sees (INVISIBLE) between any of its own; none for a secret holding one. */
  readonly invisible: readonly RegExp[];
}

/** What people put between the groups of a secret they type (a card number, an IBAN, a licence key). */
export const SEPARATORS = ' -.';
const A_SEPARATOR = /[ .-]/;

/**
 * Characters no one sees, which a text may hold between a secret's own and still show the secret: Unicode's default
 * ignorable code points — zero-width spaces, joiners and non-joiners, the soft hyphen, the word joiner, the byte order
 * mark, bidirectional marks, embeddings and isolates, variation selectors, tag characters, fillers.
 */
export const INVISIBLE = '\\p{Default_Ignorable_Code_Point}';
const AN_INVISIBLE = new RegExp(INVISIBLE, 'u');
/**
 * At most this many of them between two of a secret's characters make its invisible form: bounded, so a stream
 * redactor's hold covers the whole form (7 UTF-16 units per character of the secret at most, astral ones counted
 * twice). Longer runs are no typing slip nor a zero-width join but a text built to get past a redactor.
 */
export const MAX_INVISIBLE_RUN = 3;
/** A run of at most MAX_INVISIBLE_RUN of them, whole (none before or after it): what the invisible form skips. */
export const SHORT_INVISIBLE_RUN = new RegExp(`(?<!${INVISIBLE})${INVISIBLE}{1,${MAX_INVISIBLE_RUN}}(?!${INVISIBLE})`, 'gu');

/** Could `text` hold an invisible form (such a character at all)? */
export function mayHoldInvisibles(text: string): boolean {
  return AN_INVISIBLE.test(text);
}

/** Could `text` hold a separated form (a separator at all)? */
export function mayHoldSeparators(text: string): boolean {
  return A_SEPARATOR.test(text);
}

/** Computed once per secret: every redactor and finder of a process asks for the same few (a host's, a gate's cases). */
const formsMemo = new Map<string, SecretForms>();
const FORMS_MEMO_ENTRIES = 512;

export function formsOf(secret: string): SecretForms {
  let forms = formsMemo.get(secret);
  if (forms === undefined) {
    if (formsMemo.size >= FORMS_MEMO_ENTRIES) formsMemo.clear();
    // Frozen: shared by every caller. The escaped pattern is global, and only ever used by `replace`, which resets it.
    forms = Object.freeze({
      secret,
      escaped: escapedPattern(secret),
      base64: Object.freeze(base64Cores(secret)),
      hex: Object.freeze(hexForms(secret)),
      cased: Object.freeze(casedForms(secret)),
      separated: separatedPattern(secret),
      invisible: invisiblePattern(secret),
    });
    formsMemo.set(secret, forms);
  }
  return forms;
}

/** Below this a secret typed apart is too like ordinary text: an 8-digit number spells a date (`2024-12-01`). */
export const MIN_SEPARATED_LENGTH = 12;

/**
 * The secret with at most one separator between any two of its characters (outside probe 50, MED-2: a card number
 * declared as a secret, typed `4111 1111 1111 1111`, was stored as typed — no run of it reached half the card). Only
 * for a secret of 12 characters or more that holds no separator itself: beside a separator of its own an optional one
 * is ambiguous, and the pattern backtracked exponentially on a run of them (review of stop 56, M2); such a secret is
 * looked for as typed. Global: use it with `replace` or `matchAll` only, never `test` or `exec` (shared, it keeps no
 * `lastIndex` between callers that way).
 */
function separatedPattern(secret: string): RegExp[] {
  if (secret.length < MIN_SEPARATED_LENGTH || A_SEPARATOR.test(secret)) return [];
  return segmentsOf(secret).map((part) => new RegExp(part.map(escapeRegex).join('[ .-]?'), 'g'));
}

/**
 * The characters of a secret in runs of at most SEGMENT_CHARACTERS, each looked for on its own: a pattern of one
 * term per character of a long secret (a PEM key, a service account's JSON) overflowed the regex compiler's stack at
 * its first use — about 6,000 characters — and the SyntaxError quoted the pattern, the secret spelled out between
 * its terms, on stderr (outside probe 64, F21). Each run of a form is redacted; the form whole is every run of it.
 */
function segmentsOf(secret: string): string[][] {
  const characters = [...secret];
  // Runs of even length, each over half a run: a short last run (one character of a 1,001-character secret) would be
  // looked for everywhere, and redacted every "q" (review of stop 65, HIGH-1).
  const runs = Math.ceil(characters.length / SEGMENT_CHARACTERS);
  const base = Math.floor(characters.length / runs);
  const longer = characters.length % runs; // the first `longer` runs take one character more
  const out: string[][] = [];
  for (let i = 0, at = 0; i < runs; i++) {
    const size = base + (i < longer ? 1 : 0);
    out.push(characters.slice(at, at + size));
    at += size;
  }
  return out;
}

/** Characters per pattern of a long secret's forms: far below where the compiler overflows (about 6,000). */
export const SEGMENT_CHARACTERS = 1_000;

/**
 * The secret with a short run of characters no one sees between any two of its own (outside probe 52, LOW-1: a key with a
 * zero-width space between its characters reads as the key on every screen, and was stored and reported as typed).
 * For any secret the redactor keeps (no ordinary text holds such characters, so a short one is no ambiguity); none for
 * a secret holding one itself (looked for as typed). Linear: the secret's characters are none of the class, so each
 * run ends where the next character begins. Global: use with `replace` or `matchAll` only.
 */
function invisiblePattern(secret: string): RegExp[] {
  if (AN_INVISIBLE.test(secret)) return [];
  return segmentsOf(secret).map((part) => new RegExp(part.map(escapeRegex).join(`${INVISIBLE}{0,${MAX_INVISIBLE_RUN}}`), 'gu'));
}

/** The secret upper- and lower-cased, those that differ from it (outside probe 35, F5); none when too short to tell. */
function casedForms(secret: string): string[] {
  if (secret.length < MIN_ENCODED_LENGTH) return [];
  return [...new Set([secret.toUpperCase(), secret.toLowerCase()])].filter((form) => form !== secret);
}

/**
 * The byte strings a secret is encoded from: its UTF-8 bytes, and, when it holds a
 * character outside ASCII and every character fits one latin1 byte, its latin1
 * bytes too (`Buffer.from(s, 'latin1')`, Java's ISO-8859-1 `getBytes`, PHP on a
 * latin1 string: ü as the one byte FC).
 */
function byteForms(secret: string): Buffer[] {
  const utf8 = Buffer.from(secret, 'utf8');
  let outsideAscii = false;
  for (let i = 0; i < secret.length; i++) {
    const code = secret.charCodeAt(i);
    if (code > 0xff) return [utf8];
    if (code >= 0x80) outsideAscii = true;
  }
  return outsideAscii ? [utf8, Buffer.from(secret, 'latin1')] : [utf8];
}

/** The secret's bytes (UTF-8, and latin1 where it fits) as hex digits, as a Buffer, a key or a debug dump prints them. */
function hexForms(secret: string): string[] {
  if (secret.length < MIN_ENCODED_LENGTH) return [];
  return byteForms(secret).flatMap((bytes) => {
    const lower = bytes.toString('hex');
    return [lower, lower.toUpperCase()];
  });
}

/**
 * The characters of base64(`pad` bytes + secret) that depend on the secret alone:
 * what appears wherever the secret sits at that alignment inside a longer value
 * (for each of its byte forms).
 */
function base64Cores(secret: string): string[] {
  if (secret.length < MIN_ENCODED_LENGTH) return [];
  const out: string[] = [];
  // And its UTF-16LE bytes: what Windows PowerShell's -EncodedCommand (and .NET's Encoding.Unicode) carries (outside
  // probe 47, F4: that form reached every report whole).
  for (const bytes of [...byteForms(secret), Buffer.from(secret, 'utf16le')]) base64CoresOf(bytes, out);
  return [...new Set(out)];
}

function base64CoresOf(bytes: Buffer, out: string[]): void {
  for (let pad = 0; pad < 3; pad++) {
    const encoded = Buffer.concat([Buffer.alloc(pad), bytes]);
    const start = Math.ceil((8 * pad) / 6);
    const end = Math.floor((8 * (pad + bytes.length)) / 6);
    for (const alphabet of ['base64', 'base64url'] as const) {
      const core = encoded.toString(alphabet).slice(start, end);
      if (core.length >= MIN_ENCODED_LENGTH) out.push(core);
    }
  }
}

/**
 * A pattern for the secret with any of its characters written as itself, as
 * its UTF-8 bytes `%HH` each (or, for a latin1 character outside ASCII, its one
 * latin1 byte `%HH`), as its UTF-16 units `\uHHHH` each, or — for the ones JSON
 * escapes short (`"`, `\`, `/` and five controls) — as that short escape (both
 * with any number of backslashes): a partly or wholly URL-encoded or
 * JSON-escaped copy (every `JSON.stringify` of a password holding a quote; Go
 * escapes `<>&`, Python's `ensure_ascii` everything outside ASCII; PHP's
 * `urlencode` of an ISO-8859-1 string writes `ü` as `%FC`).
 */
function escapedPattern(secret: string): RegExp[] {
  if (secret.length < MIN_ENCODED_LENGTH) return [];
  return segmentsOf(secret).map((part) => escapedPatternOf(part));
}

function escapedPatternOf(characters: readonly string[]): RegExp {
  const parts = characters.map((c) => {
    const { percents, units, short } = encodingsOf(c);
    const shortEscape = short === undefined ? '' : `|\\\\+${escapeRegex(short)}`;
    return `(?:${escapeRegex(c)}|${percents.map(anyCaseHex).join('|')}|${units.map((u) => `\\\\+u${anyCaseHex(u)}`).join('')}${shortEscape})`;
  });
  // Case-sensitive: a secret is its exact characters (a copy in another case is another string); only the hex
  // digits of an escape may be written in either case.
  return new RegExp(parts.join(''), 'g');
}

/** Hex digits (of `%hh` or `uhhhh`) matched in either case: `%2f` as `%2[fF]`. */
function anyCaseHex(escape: string): string {
  return escape.replace(/[a-f]/g, (d) => `[${d}${d.toUpperCase()}]`);
}

/** The characters JSON writes with a short escape, and the letter after the backslash. */
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't' };

/**
 * One character's escaped spellings: its UTF-8 bytes as `%hh…` (and, for a
 * character of latin1 outside ASCII, U+0080–U+00FF, its one latin1 byte `%hh`,
 * which a run of escapes that is not UTF-8 is read as) — each also URL-encoded
 * again, `%25hh…` — its UTF-16 units as
 * 4 hex digits each (lower case), and, for a character JSON escapes short, the
 * character after the backslash(es) of that escape.
 */
function encodingsOf(c: string): Encodings {
  let known = ENCODINGS.get(c);
  if (known === undefined) ENCODINGS.set(c, (known = encodingsOfNew(c)));
  return known;
}

interface Encodings {
  readonly percents: readonly string[];
  readonly units: readonly string[];
  readonly short: string | undefined;
}

/** Each character's encodings, worked out once: the characters of the secrets configured, a bounded set. */
const ENCODINGS = new Map<string, Encodings>();

function encodingsOfNew(c: string): Encodings {
  const utf8 = [...Buffer.from(c, 'utf8')].map((b) => `%${hex2(b)}`).join('');
  const code = c.charCodeAt(0);
  const once = c.length === 1 && code >= 0x80 && code <= 0xff ? [utf8, `%${hex2(code)}`] : [utf8];
  // URL-encoded twice — a URL holding it, inside a query string (a redirect): each `%` written `%25` (outside probe 48, LOW-1).
  const percents = [...once, ...once.map((p) => p.replaceAll('%', '%25'))];
  const units: string[] = [];
  for (let i = 0; i < c.length; i++) units.push(c.charCodeAt(i).toString(16).padStart(4, '0'));
  return { percents, units, short: SHORT_ESCAPES[c] };
}

/** Could `text` hold an escaped form (a `%` or a backslash)? */
export function mayHoldEscapes(text: string): boolean {
  return text.includes('%') || text.includes('\\');
}

/** Redacts every form of every secret in `text`. */
export function redactEncodedForms(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    const { escaped, base64, hex, separated, invisible } = formsOf(secret);
    for (const pattern of escaped) out = out.replace(pattern, REDACTED);
    if (mayHoldSeparators(out)) for (const pattern of separated) out = out.replace(pattern, REDACTED);
    if (mayHoldInvisibles(out)) for (const pattern of invisible) out = out.replace(pattern, REDACTED);
    for (const core of [...base64, ...hex]) if (out.includes(core)) out = out.split(core).join(REDACTED);
  }
  return out;
}

/**
 * Could `tail` be the start of a form of the secret — of the literal, the
 * escaped pattern (any character as itself, `%HH` or `\\…uHHHH`, case aside),
 * a base64 core or the hex? True also for a whole form. For a stream that lets
 * text out as soon as no secret can reach back into it: only a tail this says
 * yes to needs holding back. Closed under prefixes (what it says yes to, it
 * says yes to without its last characters), so a tail it turns down stays
 * turned down however the stream goes on (exactSecretStream relies on it).
 */
export function mayBeginAForm(tail: string, forms: SecretForms): boolean {
  if (tail.length === 0) return false;
  if (forms.secret.startsWith(tail)) return true;
  for (const core of forms.base64) if (core.startsWith(tail)) return true;
  for (const core of forms.hex) if (core.startsWith(tail)) return true;
  if (forms.separated.length > 0 && beginsSeparated(tail, [...forms.secret], 0, 0, false)) return true;
  if (forms.invisible.length > 0 && beginsInvisible(tail, forms.secret)) return true;
  return forms.escaped.length > 0 && beginsEscaped(tail, forms.secret);
}

/**
 * `mayBeginAForm` for the invisible form: the tail, its short runs of invisible characters taken out, begins the
 * secret. A last lone high surrogate may be the first half of an invisible character (a tag character, a variation
 * selector of the supplement) that the next piece completes: held too.
 */
function beginsInvisible(tail: string, secret: string): boolean {
  const last = tail.charCodeAt(tail.length - 1);
  const split = last >= 0xd800 && last <= 0xdbff;
  if (!split && !mayHoldInvisibles(tail)) return false;
  const seen = (split ? tail.slice(0, -1) : tail).replace(SHORT_INVISIBLE_RUN, '');
  return secret.startsWith(seen);
}

/** `mayBeginAForm` for the separated form: the tail spells the secret's characters from `i`, a separator allowed between two. */
function beginsSeparated(tail: string, chars: readonly string[], i: number, j: number, afterSeparator: boolean): boolean {
  if (j >= tail.length) return true; // the tail is used up: the rest of the form may follow
  if (i >= chars.length) return false; // a whole form with more after it: found whole, not held
  const c = chars[i]!;
  if (tail.length - j < c.length && c.startsWith(tail.slice(j))) return true; // the tail ends inside an astral character of it
  if (tail.startsWith(c, j) && beginsSeparated(tail, chars, i + 1, j + c.length, false)) return true;
  return i > 0 && !afterSeparator && SEPARATORS.includes(tail[j]!) && beginsSeparated(tail, chars, i, j + 1, true);
}

/** `mayBeginAForm` for the escaped pattern: walks the secret's characters against the tail, each written any of its three ways. */
function beginsEscaped(tail: string, secret: string): boolean {
  const chars = [...secret];
  /** Where `want` (lower case) ends if the tail spells it from `j`, case aside; `tail.length` when the tail ends inside it; -1 if not. */
  const spelled = (j: number, want: string): number => {
    const got = tail.slice(j, j + want.length).toLowerCase();
    return want.startsWith(got) ? j + want.length : -1;
  };
  /** Where the `\uHHHH` units end from `j` (each after one or more backslashes); as `spelled`. */
  const unitsFrom = (j: number, units: readonly string[]): number => {
    let k = j;
    for (const unit of units) {
      if (k >= tail.length) return k;
      if (tail[k] !== '\\') return -1;
      while (k < tail.length && tail[k] === '\\') k++;
      k = spelled(k, `u${unit}`);
      if (k < 0) return -1;
    }
    return k;
  };
  /** Where a short escape of `short` ends from `j` (after one or more backslashes); as `spelled`, but case matters. */
  const shortFrom = (j: number, short: string): number => {
    let k = j;
    while (k < tail.length && tail[k] === '\\') k++;
    if (k >= tail.length) return k;
    return tail[k] === short ? k + 1 : -1;
  };
  const from = (i: number, j: number): boolean => {
    // Where no escape starts, the character as itself is the one way on: walked, not recursed (a long run of a
    // character the secret repeats, each place of a stream's tail asked about).
    for (; j < tail.length && i < chars.length && tail[j] !== '%' && tail[j] !== '\\'; i++) {
      j = spelled(j, chars[i]!.toLowerCase());
      if (j < 0) return false;
    }
    if (j >= tail.length) return true; // the tail is used up: the rest of a form may follow
    if (i >= chars.length) return false; // a whole form with more after it: found whole, not held
    const c = chars[i]!;
    const { percents, units, short } = encodingsOf(c);
    const escapes = tail[j] === '%' ? percents.map((percent) => spelled(j, percent)) : [];
    if (short !== undefined && tail[j] === '\\') escapes.push(shortFrom(j, short));
    for (const end of [spelled(j, c.toLowerCase()), ...escapes, unitsFrom(j, units)]) {
      if (end < 0) continue;
      if (end >= tail.length || from(i + 1, end)) return true;
    }
    return false;
  };
  return from(0, 0);
}

/**
 * Whether `secret` appears in `text` once its `%HH`, `\uHHHH` and JSON short
 * escapes are undone, round by round (a value encoded twice is still that value): looked
 * for after every round, not only after the last, since a secret may itself
 * hold what reads as an escape (a password `ab%2Acd…`): one more round would
 * undo that too, and the secret would be gone from the text it is in.
 */
function unescapedHolds(text: string, secret: string): boolean {
  return unescapedRounds(text).some((round) => round.includes(secret));
}

/** The text after each round of undoing escapes (up to three, until one changes nothing); the last text's kept, as a search asks for each secret in turn. */
let lastUnescaped: { readonly text: string; readonly rounds: readonly string[] } | undefined;
function unescapedRounds(text: string): readonly string[] {
  if (lastUnescaped?.text === text) return lastUnescaped.rounds;
  const rounds: string[] = [];
  let out = text;
  for (let round = 0; round < 3; round++) {
    const next = out
      .replace(/\\+u([0-9a-fA-F]{4})/g, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16)))
      .replace(/\\+(["\\/bfnrt])/g, (_m, e: string) => SHORT_UNESCAPED[e]!)
      .replace(/(?:%[0-9a-fA-F]{2})+/g, percentDecoded);
    if (next === out) break;
    rounds.push(next);
    out = next;
  }
  lastUnescaped = { text, rounds };
  return rounds;
}

/** A run of `%HH` escapes undone: as UTF-8 when its bytes are UTF-8, else one character per byte. */
function percentDecoded(run: string): string {
  try {
    return decodeURIComponent(run);
  } catch {
    return run.replace(/%([0-9a-fA-F]{2})/g, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
  }
}

/** Is there an escape `unescapedHolds` would undo? Without one the text is all it would look at. */
function holdsAnEscape(text: string): boolean {
  return /\\u[0-9a-fA-F]{4}|%[0-9a-fA-F]{2}|\\["\\/bfnrt]/.test(text);
}

/** The character each short escape stands for (the letter or symbol after its backslash). */
const SHORT_UNESCAPED: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(SHORT_ESCAPES).map(([c, e]) => [e, c]));

/** Whether any form of `secret` is in `text`: literal, unescaped, base64 at any alignment, or hex. */
export function containsSecret(text: string, secret: string): boolean {
  return secretFinder(secret)(text);
}

/**
 * `containsSecret` for one secret, its encoded forms computed once: for looking
 * through many texts for the same secret.
 */
export function secretFinder(secret: string): (text: string) => boolean {
  if (secret.length < MIN_SECRET_LENGTH) return () => false;
  const { base64, hex, cased, separated, invisible } = formsOf(secret);
  // Not global: `test` keeps no place. A run of a long secret's form is found as the form (segmentsOf).
  const unseen = invisible.map((p) => new RegExp(p.source, 'u'));
  if (secret.length < MIN_ENCODED_LENGTH) return (text) => text.includes(secret) || (mayHoldInvisibles(text) && unseen.some((p) => p.test(text)));
  const cores = [...base64, ...hex, ...cased];
  const typedApart = separated.map((p) => new RegExp(p.source));
  return (text) => {
    if (text.includes(secret)) return true;
    if (typedApart.length > 0 && mayHoldSeparators(text) && typedApart.some((p) => p.test(text))) return true;
    if (unseen.length > 0 && mayHoldInvisibles(text) && unseen.some((p) => p.test(text))) return true;
    if (mayHoldEscapes(text) && holdsAnEscape(text) && unescapedHolds(text, secret)) return true;
    return cores.some((core) => text.includes(core));
  };
}
