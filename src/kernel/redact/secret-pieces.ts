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
  const apart = formsOf(secret).separated !== undefined ? finders[0]! : undefined;
  // With a few characters no one sees between its own (outside probe 52, LOW-1): runs of the text as a screen shows it.
  const unseen = formsOf(secret).invisible !== undefined ? finders[0]! : undefined;
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

/**
 * The text with each single separator between two other characters (neither a separator nor white space) taken out,
 * and where each character of it stands in the text.
 */
function joinedUp(text: string): { readonly joined: string; readonly at: readonly number[] } {
  let joined = '';
  const at: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (isSeparator(code) && i > 0 && i + 1 < text.length && !isSpaceOrSeparator(text.charCodeAt(i - 1)) && !isSpaceOrSeparator(text.charCodeAt(i + 1)))
      continue;
    joined += text[i];
    at.push(i);
  }
  return { joined, at };
}

function runFinder(form: string, min: number): (text: string, spans: [number, number][]) => void {
  const block = Math.max(1, Math.floor((min + 1) / 2));
  // Each distinct block, with every place it starts in the form.
  const anchors = new Map<string, number[]>();
  for (let start = 0; start + block <= form.length; start += block) {
    const text = form.slice(start, start + block);
    if (anchors.has(text)) continue;
    const places: number[] = [];
    for (let at = form.indexOf(text); at >= 0; at = form.indexOf(text, at + 1)) places.push(at);
    anchors.set(text, places);
  }
  return (text, spans) => {
    if (text.length < min) return;
    for (const [anchor, places] of anchors) {
      for (let hit = text.indexOf(anchor); hit >= 0; hit = text.indexOf(anchor, hit + 1)) {
        for (const place of places) {
          // The text lines up with the form from `hit − place`: grow the run both ways while it does.
          let from = hit;
          while (from > 0 && from - hit + place > 0 && text.charCodeAt(from - 1) === form.charCodeAt(from - 1 - hit + place)) from--;
          let to = hit + block;
          while (to < text.length && to - hit + place < form.length && text.charCodeAt(to) === form.charCodeAt(to - hit + place)) to++;
          if (to - from >= min) spans.push([from, to]);
        }
      }
    }
  };
}
