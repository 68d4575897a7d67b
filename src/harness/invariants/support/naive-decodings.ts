/**
 * Invariant 15's own search for a secret in a text, written to share nothing
 * with the kernel's (`secretFinder`): the text as it is, in any case, the text with its
 * `%HH`, `\uHHHH` and JSON's short escapes (`\"`, `\\`, `\/`, `\n`…) undone, every run of 12 or more base64
 * characters (standard or URL-safe) decoded at each of its four offsets, and
 * every run of 16 or more hex digits decoded at both of its offsets.
 *
 * The decodings are made once per text, when first asked, and then searched
 * for any number of secrets: a run's cost is the size of what it wrote, not
 * that times the number of secrets. A base64 run is decoded once however often
 * it occurs (JSON keys, ids and the reports' own markup repeat in every text
 * of every run): its decodings are kept, up to `KEPT_RUNS` distinct runs.
 */

/** Shortest secret looked for in an encoded form (as the redactor: shorter ones only as they are). */
export const MIN_ENCODED_SECRET = 8;
/** Shortest run of base64 characters decoded. */
export const MIN_BASE64_RUN = 12;
/** Shortest run of hex digits decoded (8 bytes: the shortest secret looked for encoded). */
export const MIN_HEX_RUN = 16;
const HEX_RUN = new RegExp(`[0-9a-fA-F]{${MIN_HEX_RUN},}`, 'g');

const AN_ESCAPE = /%[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\["\\/bfnrt]/;
/** JSON's short escapes, as `JSON.parse` reads them (any number of backslashes: escaped again, twice). */
const SHORT_ESCAPE = /\\+(["\\/bfnrt])/g;
const SHORT: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
/**
 * A run of `%HH` escapes undone: its bytes read as UTF-8 when they are UTF-8
 * (what a browser or `encodeURIComponent` writes for a character outside
 * ASCII), else one character per byte (latin1, as older code writes).
 */
function percentRun(run: string): string {
  const bytes = Buffer.from(run.replaceAll('%', ''), 'hex');
  const utf8 = bytes.toString('utf8');
  return Buffer.from(utf8, 'utf8').equals(bytes) ? utf8 : bytes.toString('latin1');
}

/** Characters of standard and URL-safe base64, by char code. */
const BASE64_CHAR = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_') BASE64_CHAR[c.charCodeAt(0)] = 1;
/**
 * Characters no one sees (Unicode's default ignorable code points: zero-width spaces, soft hyphens, joiners, marks),
 * in runs of at most 3 between two others — the redactor's rule: a secret with longer runs between its characters is
 * not one it promises to find.
 */
const UNSEEN = /(?<!\p{Default_Ignorable_Code_Point})\p{Default_Ignorable_Code_Point}{1,3}(?!\p{Default_Ignorable_Code_Point})/gu;
/** Between decoded pieces: a secret holding it is searched piece by piece. */
const SEPARATOR = '\u0000';
/** Distinct base64 runs whose decodings are kept between texts (then forgotten, all at once). */
const KEPT_RUNS = 50_000;
const decodedRuns = new Map<string, string>();

export class NaiveDecodings {
  readonly #text: string;
  /** The text after each round of undoing its escapes; null when it holds none. */
  #unescaped: readonly string[] | null | undefined;
  #runs: Set<string> | undefined;
  #pieces: string[] | undefined;
  #joined: string | undefined;
  #hex: string | undefined;
  #lower: string | undefined;
  /** The text with each single separator between two other characters taken out. */
  #joinedUp: string | undefined;
  /** The text as a screen shows it: every character no one sees taken out. */
  #seen: string | undefined;

  constructor(text: string) {
    this.#text = text;
  }

  /** How `secret` can be read from the text ('as it is', 'escaped …', 'base64-encoded'), else undefined. */
  formOf(secret: string): string | undefined {
    if (this.#text.includes(secret)) return 'as it is';
    if (secret.length < MIN_ENCODED_SECRET) return undefined;
    // Upper- or lower-cased whole (a header value a proxy normalised, a key printed in capitals): still the secret.
    if (secret.toLowerCase() !== secret.toUpperCase() && (this.#lower ??= this.#text.toLowerCase()).includes(secret.toLowerCase())) return 'in another case';
    const plain = this.#plain();
    if (plain !== null && plain.some((round) => round.includes(secret))) return 'escaped (%HH, \\uHHHH or JSON)';
    // Typed in groups: one space, '-' or '.' between two characters taken out (a secret under 12 characters, or holding
    // a separator, is looked for as it is: the redactor's rule too).
    if (secret.length >= 12 && !/[ .-]/.test(secret) && (this.#joinedUp ??= this.#text.replace(/(?<=[^\s.-])[ .-](?=[^\s.-])/g, '')).includes(secret))
      return 'with separators between its characters';
    // With characters no one sees between its own (a zero-width space, a soft hyphen): what a screen shows is the secret.
    if ((this.#seen ??= this.#text.replace(UNSEEN, '')) !== this.#text && this.#seen.includes(secret)) return 'with invisible characters between its own';
    // Decoded bytes are read as latin1: a secret is looked for as its UTF-8 bytes read the same way, and, when each
    // of its characters is one latin1 byte, as those bytes (what latin1 code encodes: the secret itself, so read).
    const forms = [Buffer.from(secret, 'utf8').toString('latin1')];
    const codes = [...secret].map((c) => c.charCodeAt(0));
    if (codes.some((c) => c >= 0x80) && codes.every((c) => c <= 0xff)) forms.push(secret);
    for (const bytes of forms) {
      const found = bytes.includes(SEPARATOR)
        ? this.#decodedPiecesApart().some((p) => p.includes(bytes))
        : (this.#joined ??= this.#decodedPieces().join(SEPARATOR)).includes(bytes);
      if (found) return 'base64-encoded';
    }
    return forms.some((bytes) => this.#hexDecoded().includes(bytes)) ? 'hex-encoded' : undefined;
  }

  /** Each run of hex digits decoded at offsets 0 and 1, as latin1 text, the pieces joined. */
  #hexDecoded(): string {
    if (this.#hex !== undefined) return this.#hex;
    const pieces: string[] = [];
    for (const [run] of this.#text.matchAll(HEX_RUN)) {
      for (let offset = 0; offset < 2; offset++) {
        const digits = run.slice(offset, offset + ((run.length - offset) & ~1));
        pieces.push(Buffer.from(digits, 'hex').toString('latin1'));
      }
    }
    return (this.#hex = pieces.join(SEPARATOR));
  }

  /**
   * The text after each round of undoing its escapes, up to three (an escape
   * escaped again, twice), until a round undoes nothing: every round is kept,
   * since a secret may itself hold what reads as an escape (`ab%2Acd…`), which
   * the round after the one that reveals it undoes too.
   */
  #plain(): readonly string[] | null {
    if (this.#unescaped !== undefined) return this.#unescaped;
    if (!AN_ESCAPE.test(this.#text)) return (this.#unescaped = null);
    const rounds: string[] = [];
    let plain = this.#text;
    for (let round = 0; round < 3; round++) {
      const next = plain
        .replace(/\\+u([0-9a-fA-F]{4})/g, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16)))
        .replace(SHORT_ESCAPE, (_m, c: string) => SHORT[c]!)
        .replace(/(?:%[0-9a-fA-F]{2})+/g, percentRun);
      if (next === plain) break;
      rounds.push(next);
      plain = next;
    }
    return (this.#unescaped = rounds);
  }

  /** Each distinct base64 run of the text decoded at offsets 0–3, as latin1 text (the four joined). */
  #decodedPieces(): string[] {
    if (this.#pieces) return this.#pieces;
    const runs = (this.#runs = new Set<string>());
    const text = this.#text;
    let start = -1;
    for (let i = 0; i <= text.length; i++) {
      const code = i < text.length ? text.charCodeAt(i) : 0;
      if (code < 128 && BASE64_CHAR[code] === 1) {
        if (start < 0) start = i;
        continue;
      }
      if (start >= 0 && i - start >= MIN_BASE64_RUN) runs.add(text.slice(start, i));
      start = -1;
    }
    const pieces: string[] = [];
    for (const run of runs) {
      let decoded = decodedRuns.get(run);
      if (decoded === undefined) {
        decoded = decodeAtEachOffset(run).join(SEPARATOR);
        if (decodedRuns.size >= KEPT_RUNS) decodedRuns.clear();
        decodedRuns.set(run, decoded);
      }
      pieces.push(decoded);
    }
    return (this.#pieces = pieces);
  }

  /** Each distinct base64 run decoded at offsets 0–3, one piece each (not joined): for a secret holding the separator. */
  #decodedPiecesApart(): string[] {
    this.#decodedPieces();
    return [...this.#runs!].flatMap(decodeAtEachOffset);
  }
}

/** A base64 run (standard or URL-safe: Node's decoder reads both) decoded from each of its first four characters. */
function decodeAtEachOffset(run: string): string[] {
  const out: string[] = [];
  for (let offset = 0; offset < 4; offset++) out.push(Buffer.from(run.slice(offset), 'base64').toString('latin1'));
  return out;
}
