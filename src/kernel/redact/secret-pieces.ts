/**
 * Pieces of a secret: half of one gives half of it away. What counts: a run of
 * at least half the secret's characters and at least 8 (shorter runs turn up in
 * ordinary text, and a credential's public prefix — `sk_live_`, `ghp_` — is at
 * most a third of the key it starts). A secret of 8 characters or fewer has no
 * piece but itself. The redactor replaces pieces where it replaces secrets
 * (`pieceSpans`); values kept as they are, which cannot be redacted in part —
 * ids — are refused instead (`holdsSecretPiece`).
 */
import { formsOf, INVISIBLE, MAX_INVISIBLE_RUN, MIN_SECRET_LENGTH, mayHoldInvisibles, mayHoldSeparators } from './secret-forms.ts';

/** Shortest piece of a secret counted (the run of at least 8 characters and half of it). */
export const MIN_PIECE = 8;

/** The shortest piece of `secret` that gives part of it away, or undefined when only the whole secret does. */
export function secretPieceLength(secret: string): number | undefined {
  const length = Math.max(MIN_PIECE, Math.ceil(secret.length / 2));
  return length < secret.length ? length : undefined;
}

/** Whether `text` holds `secret`, or a piece of it `secretPieceLength` long or longer, as it is. */
export function holdsSecretPiece(text: string, secret: string): boolean {
  if (secret.length < MIN_SECRET_LENGTH) return false;
  const min = secretPieceLength(secret);
  if (min === undefined) return text.includes(secret);
  for (let start = 0; start + min <= secret.length; start++) if (text.includes(secret.slice(start, start + min))) return true;
  return false;
}

/**
 * `text` with every run of `secretPieceLength` or more of a secret's characters
 * replaced by `marker` (the whole secret included): for reports, which show what
 * a run wrote and must not show half a secret it leaked.
 */
export function redactSecretPieces(text: string, secrets: readonly string[], marker: string): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    if (out.includes(secret)) out = out.split(secret).join(marker);
    const min = secretPieceLength(secret);
    if (min === undefined || !holdsSecretPiece(out, secret)) continue; // any longer piece holds one of the shortest
    // Longest pieces first, so a long run goes whole rather than leaving a tail of its own.
    for (let length = secret.length - 1; length >= min; length--) {
      for (let start = 0; start + length <= secret.length; start++) {
        const piece = secret.slice(start, start + length);
        if (out.includes(piece)) out = out.split(piece).join(marker);
      }
    }
  }
  return out;
}

/**
 * Where the pieces of `secret` are in a text: each a maximal run of the
 * secret's characters, in order, at least `secretPieceLength` long (the whole
 * secret too). Undefined for a secret that has no piece but itself.
 *
 * Found from anchors, not by trying every piece: the secret is cut into blocks
 * of `a` characters, with `2a − 1 ≤ min`, so any run of `min` characters of the
 * secret holds one whole block. Each block is looked for with `indexOf` (a
 * handful of scans per text, whatever the secret's length); at each hit the run
 * is grown both ways along the secret, from every place the block has in it.
 *
 * A secret holding `"`, `\` or a control character, which a JSON text carries
 * escaped, is also looked for as its JSON-escaped text, once and twice (a JSON
 * text inside a JSON string), the same way (its pieces counted in escaped
 * characters).
 */
export function pieceSpans(secret: string): ((text: string) => [number, number][]) | undefined {
  const min = secretPieceLength(secret);
  if (min === undefined || secret.length < MIN_SECRET_LENGTH) return undefined;
  // The secret as it is, and JSON-escaped once and twice (a JSON text inside a JSON string) when that changes it.
  const forms = [secret];
  for (let level = 0; level < 2; level++) {
    const escaped = JSON.stringify(forms[forms.length - 1]).slice(1, -1);
    if (escaped === forms[forms.length - 1]) break;
    forms.push(escaped);
  }
  const finders = forms.map((form) => runFinder(form, min));
  // Typed apart (a card number in groups, a digit left out): runs of the text with its single separators taken out,
  // for a secret the separated form is kept for (review of stop 56, M1: groups of 4 are no run of 8).
  const apart = formsOf(secret).separated.length > 0 ? finders[0]! : undefined;
  // With a few characters no one sees between its own (outside probe 52, LOW-1): runs of the text as a screen shows it.
  const unseen = formsOf(secret).invisible.length > 0 ? finders[0]! : undefined;
  return (text) => {
    const spans: [number, number][] = [];
    for (const find of finders) find(text, spans);
    if (apart && mayHoldSeparators(text)) runsIn(joinedUp(text), text, apart, spans);
    if (unseen && mayHoldInvisibles(text)) runsIn(seenAs(text), text, unseen, spans);
    return spans;
  };
}

/** The runs `find` finds in a view of `text` (a text with characters taken out), as spans of `text`. */
function runsIn(
  view: { readonly joined: string; readonly at: readonly number[] },
  text: string,
  find: (text: string, spans: [number, number][]) => void,
  spans: [number, number][],
): void {
  if (view.joined.length === text.length) return;
  const found: [number, number][] = [];
  find(view.joined, found);
  for (const [from, to] of found) spans.push([view.at[from]!, view.at[to - 1]! + 1]);
}

const AN_INVISIBLE = new RegExp(INVISIBLE, 'u');

/** The last text `seenAs` was asked about, and its view: the redactor asks once per secret for the same text. */
let seenFor: { readonly text: string; readonly view: { readonly joined: string; readonly at: readonly number[] } } | undefined;

/**
 * The text as a screen shows it — each short run of characters no one sees (MAX_INVISIBLE_RUN at most, the invisible
 * form's rule) taken out — and where each character of it stands in the text.
 */
function seenAs(text: string): { readonly joined: string; readonly at: readonly number[] } {
  if (seenFor?.text === text) return seenFor.view;
  let joined = '';
  const at: number[] = [];
  let run: number[] = []; // the positions of the invisible run being read (its code units)
  let runLength = 0; // in code points
  const endRun = () => {
    if (runLength > MAX_INVISIBLE_RUN)
      for (const i of run) {
        joined += text[i];
        at.push(i);
      }
    run = [];
    runLength = 0;
  };
  for (let i = 0; i < text.length; ) {
    const width = text.codePointAt(i)! > 0xffff ? 2 : 1;
    if (AN_INVISIBLE.test(text.slice(i, i + width))) {
      for (let k = 0; k < width; k++) run.push(i + k);
      runLength++;
    } else {
      endRun();
      for (let k = 0; k < width; k++) {
        joined += text[i + k];
        at.push(i + k);
      }
    }
    i += width;
  }
  endRun();
  const view = { joined, at };
  seenFor = { text, view };
  return view;
}

const isSeparator = (code: number): boolean => code === 0x20 || code === 0x2d || code === 0x2e; // space, '-', '.'
const isSpaceOrSeparator = (code: number): boolean => isSeparator(code) || /\s/.test(String.fromCharCode(code));

/** The last text `joinedUp` was asked about, and its view: the redactor asks once per secret for the same text. */
let joinedFor: { readonly text: string; readonly view: { readonly joined: string; readonly at: readonly number[] } } | undefined;

/**
 * The text with each single separator between two other characters (neither a separator nor white space) taken out,
 * and where each character of it stands in the text.
 */
function joinedUp(text: string): { readonly joined: string; readonly at: readonly number[] } {
  if (joinedFor?.text === text) return joinedFor.view;
  let joined = '';
  const at: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (isSeparator(code) && i > 0 && i + 1 < text.length && !isSpaceOrSeparator(text.charCodeAt(i - 1)) && !isSpaceOrSeparator(text.charCodeAt(i + 1)))
      continue;
    joined += text[i];
    at.push(i);
  }
  const view = { joined, at };
  joinedFor = { text, view };
  return view;
}

/**
 * Finds, in a text, each run of at least `min` characters that is also a run of `form`, merged: spans sorted, none
 * overlapping or touching another (outside probe's degenerate input, stop 57: a run grown from every place of every
 * hit went as the text times the form — 40,000 `a`s against `aaaa…ab` took 10 s, 200,000 ran out of memory).
 *
 * The form's blocks are the anchors (any run of `min` holds one whole, see `pieceSpans`): a few `indexOf` scans, and
 * a text without one — almost every text — costs nothing more. Around each hit, where a run holding it can lie (the
 * form's length each way, and on for another hits after it may need) is read once, left to right, through the form's suffix automaton: at each character, the
 * longest run of the form ending there (its matching statistics), so the work is linear in what is read.
 */
function runFinder(form: string, min: number): (text: string, spans: [number, number][]) => void {
  const block = Math.max(1, Math.floor((min + 1) / 2));
  const anchors = new Set<string>();
  for (let start = 0; start + block <= form.length; start += block) anchors.add(form.slice(start, start + block));
  let automaton: SuffixAutomaton | undefined; // built at the first hit: most secrets never turn up
  return (text, spans) => {
    if (text.length < min) return;
    // Where runs may lie: a run holding a hit lies within the form's length of it. One window serves every hit in
    // the form's length after the first (a long run of a character the secret repeats is a hit at every place),
    // so each is read to twice that; windows of one anchor come left to right and are merged as they come.
    const windows: [number, number][] = [];
    for (const anchor of anchors) {
      let last: [number, number] | undefined;
      for (let hit = text.indexOf(anchor); hit >= 0; hit = text.indexOf(anchor, hit + form.length)) {
        const from = Math.max(0, hit + block - form.length);
        const to = Math.min(text.length, hit + 2 * form.length);
        if (last && from <= last[1]) last[1] = to;
        else windows.push((last = [from, to]));
      }
    }
    if (!windows.length) return;
    windows.sort((a, b) => a[0] - b[0]);
    automaton ??= suffixAutomaton(form);
    let run: [number, number] | undefined;
    const found = (from: number, to: number) => {
      if (run && from <= run[1]) run[1] = Math.max(run[1], to);
      else spans.push((run = [from, to]));
    };
    // Windows of several anchors overlap: each union is read once, from its start — a run read from where another
    // window stopped would start over there, and a run across that place be split into halves too short to count
    // (review of stop 58, H1).
    let union: [number, number] | undefined;
    for (const [from, to] of windows) {
      if (union && from <= union[1]) {
        union[1] = Math.max(union[1], to);
        continue;
      }
      if (union) readRuns(automaton, text, union[0], union[1], min, found);
      union = [from, to];
    }
    if (union) readRuns(automaton, text, union[0], union[1], min, found);
  };
}

/** A suffix automaton of a text: its states' longest lengths, suffix links and transitions (by UTF-16 code unit). */
interface SuffixAutomaton {
  readonly length: number[];
  readonly link: number[];
  readonly next: Map<number, number>[];
}

function suffixAutomaton(form: string): SuffixAutomaton {
  const length = [0];
  const link = [-1];
  const next: Map<number, number>[] = [new Map()];
  let last = 0;
  for (let i = 0; i < form.length; i++) {
    const c = form.charCodeAt(i);
    const state = length.push(length[last]! + 1) - 1;
    link.push(-1);
    next.push(new Map());
    let p = last;
    while (p >= 0 && !next[p]!.has(c)) {
      next[p]!.set(c, state);
      p = link[p]!;
    }
    if (p < 0) link[state] = 0;
    else {
      const q = next[p]!.get(c)!;
      if (length[p]! + 1 === length[q]) link[state] = q;
      else {
        const clone = length.push(length[p]! + 1) - 1;
        link.push(link[q]!);
        next.push(new Map(next[q]!));
        while (p >= 0 && next[p]!.get(c) === q) {
          next[p]!.set(c, clone);
          p = link[p]!;
        }
        link[q] = clone;
        link[state] = clone;
      }
    }
    last = state;
  }
  return { length, link, next };
}

/** Each run of at least `min` characters of the automaton's text in `text[from, to)`, as `found(start, end)`, left to right. */
function readRuns(automaton: SuffixAutomaton, text: string, from: number, to: number, min: number, found: (from: number, to: number) => void): void {
  const { length, link, next } = automaton;
  let state = 0;
  let matched = 0; // the longest run of the form ending at i
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    while (state > 0 && !next[state]!.has(c)) {
      state = link[state]!;
      matched = length[state]!;
    }
    const to = next[state]!.get(c);
    if (to === undefined) {
      state = 0;
      matched = 0;
    } else {
      state = to;
      matched++;
    }
    if (matched >= min) found(i + 1 - matched, i + 1);
  }
}
