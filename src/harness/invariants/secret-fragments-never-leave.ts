/**
 * No long piece of a configured secret can be read back from anything the run
 * stores, exports, writes or returns (invariant 15 looks for whole secrets).
 *
 * A secret can leave in part: tool output cut for the model before it is
 * redacted keeps the head of a secret that straddles the cut (the redactor
 * no longer sees the whole value), and a clip of an error text or an excerpt
 * keeps a head, a tail or a middle. "Long" is at least half the secret and at
 * least 8 characters (`fragmentLength`):
 * - half: a piece of half the secret gives away half of it, and a piece this
 *   long cannot be a credential's public prefix alone (`sk_live_`, `ghp_`,
 *   `dpl_tok_` are at most a third of the keys they start) — text that names the
 *   kind of key is not a leak;
 * - 8: the length from which the kernel looks for a secret's encoded forms too;
 *   shorter runs of characters turn up in ordinary text (a word, a number), so
 *   a secret of 8 characters or fewer is looked for whole only (invariant 15).
 * Looked for literally and JSON-escaped up to three times (the artifacts are
 * mostly JSON, and a tool's output may hold a serialized JSON body), in the
 * same artifacts as invariant 15 (support/run-artifacts.ts). The verdict names
 * the piece's length and place in the secret, never the piece.
 */
import type { PeerRun } from '../loop-port/peer-run.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant } from './invariant.ts';
import { runArtifacts, type Artifact } from './support/run-artifacts.ts';
import { secretHint } from './support/secret-hint.ts';

export const MIN_FRAGMENT = 8;

/** The shortest piece of `secret` counted as a leak, or undefined when only the whole secret is (8 characters or fewer). */
export function fragmentLength(secret: string): number | undefined {
  const length = Math.max(MIN_FRAGMENT, Math.ceil(secret.length / 2));
  return length < secret.length ? length : undefined;
}

/** The longest piece of `secret` (at least `fragmentLength` long) found in `text`, as [start, length]; else undefined — also when the whole secret is there (invariant 15's verdict). */
export function longestFragment(text: string, secret: string): readonly [start: number, length: number] | undefined {
  const min = fragmentLength(secret);
  if (min === undefined) return undefined;
  const escaped = (piece: string): string => JSON.stringify(piece).slice(1, -1);
  // Literal, and JSON-escaped up to three times: a tool's output holding a serialized body is a JSON text inside a
  // JSON string, which an artifact (JSON itself) escapes once more.
  const holds = (piece: string): boolean => {
    for (let form = piece, level = 0; level <= 3; form = escaped(form), level++) if (text.includes(form)) return true;
    return false;
  };
  if (holds(secret)) return undefined; // the whole secret: invariant 15's verdict
  const found = longestIn(secret, min, holds);
  if (found) return found;
  // With characters no one sees between its own (a zero-width space, a soft hyphen): the text as a screen shows it.
  // Runs of at most 3 between two other characters: the redactor's rule.
  const seen = /\p{Default_Ignorable_Code_Point}/u.test(secret)
    ? text
    : text.replace(/(?<!\p{Default_Ignorable_Code_Point})\p{Default_Ignorable_Code_Point}{1,3}(?!\p{Default_Ignorable_Code_Point})/gu, '');
  if (seen !== text) {
    if (seen.includes(secret)) return undefined; // the whole: invariant 15's
    const unseen = longestIn(secret, min, (piece) => seen.includes(piece));
    if (unseen) return unseen;
  }
  if (secret.length < 12 || /[ .-]/.test(secret)) return undefined;
  // Typed apart (a card number in groups, a digit left out): the text with single separators between two other
  // characters taken out (review of stop 56, M1). For a secret of 12 characters or more holding none itself, as the
  // redactor's rule. Its place is given in the secret, as for a piece typed as it is.
  const joined = text.replace(/(?<=[^\s.-])[ .-](?=[^\s.-])/g, '');
  if (joined.length === text.length || joined.includes(secret)) return undefined; // the whole: invariant 15's
  return longestIn(secret, min, (piece) => joined.includes(piece));
}

/** The longest piece of `secret` of at least `min` characters that `holds` says is there, as [start, length]. */
function longestIn(secret: string, min: number, holds: (piece: string) => boolean): readonly [start: number, length: number] | undefined {
  if (!holdsABlock(secret, min, holds)) return undefined;
  let best: [number, number] | undefined;
  for (let start = 0; start + min <= secret.length; start++) {
    if (!holds(secret.slice(start, start + min))) continue;
    let end = start + min;
    while (end < secret.length && holds(secret.slice(start, end + 1))) end++;
    if (!best || end - start > best[1]) best = [start, end - start];
  }
  return best;
}

/**
 * Whether `text` (by `holds`) has one of the secret's aligned blocks of half `min`: every piece of `min` characters
 * holds one whole, and JSON escapes a piece character by character, so a text without any block has no piece either —
 * most texts, found in a few searches instead of one per place in the secret. A secret with a surrogate pair (a block
 * edge could split it, which JSON escapes differently) is not pre-checked.
 */
function holdsABlock(secret: string, min: number, holds: (piece: string) => boolean): boolean {
  if (/[\ud800-\udfff]/.test(secret)) return true;
  const block = Math.floor(min / 2);
  for (let at = 0; at + block <= secret.length; at += block) if (holds(secret.slice(at, at + block))) return true;
  return false;
}

export const secretFragmentsNeverLeave = defineInvariant({
  id: 'secret-fragments-never-leave',
  title: 'no long piece of a configured secret (half of it, at least 8 characters) can be read back from anything the run stores, exports, writes or returns',
  check: (run: ScenarioRun) => fragmentsKeptOut(run.secrets, runArtifacts(run)),
  checkObservable: (run: PeerRun) =>
    fragmentsKeptOut(run.secrets, [
      ['the persisted history', () => JSON.stringify(run.histories)],
      ['the spans', () => JSON.stringify(run.traces)],
      ['the requests sent to the model', () => JSON.stringify(run.requests)],
      ['the turn replies', () => JSON.stringify(run.reports)],
    ]),
});

function fragmentsKeptOut(secrets: readonly string[], artifacts: readonly Artifact[]): string | undefined {
  const judged = secrets.filter((s) => fragmentLength(s) !== undefined);
  if (judged.length === 0) return undefined;
  for (const [where, text] of artifacts) {
    const haystack = text();
    for (const secret of judged) {
      const found = longestFragment(haystack, secret);
      if (!found) continue;
      const [start, length] = found;
      const place = start === 0 ? 'its first' : start + length === secret.length ? 'its last' : `${length} from character ${start + 1}, of`;
      const said =
        start === 0 || start + length === secret.length ? `${place} ${length} of ${secret.length} characters` : `${place} ${secret.length} characters`;
      return `a piece of a configured secret (${secretHint(secret)}): ${said}, can be read back from ${where}`;
    }
  }
  return undefined;
}
