/**
 * Invariant 15: no configured secret can be read back from anything the process
 * stores, exports, writes or returns — in any form: joined stream chunks,
 * encodings (URL-encoded, `\u`-escaped, base64, hex), ids, error texts.
 *
 * Looked for (support/run-artifacts.ts) in the log and in each model call's
 * streamed deltas joined back together, the store, the traces, the requests sent
 * to the provider, the turn results, the host's response envelopes, and the
 * case's report in every format.
 *
 * Two searches: the kernel's own (`containsSecret`, the same forms redaction
 * removes) and a naive one (support/naive-decodings.ts) that shares nothing
 * with it — every run of base64 characters in the text decoded at each of its
 * four offsets, every run of hex digits at both of its own, and the text with
 * its `%HH` and `\uHHHH` escapes undone — so a form the redactor stopped
 * recognising is not also missed by the check.
 *
 * The kernel's search is checked first on copies planted here (literal,
 * URL-encoded, base64 and hex inside a longer value, upper- and lower-cased whole): a search that stopped finding a
 * form would otherwise pass every run, since a correct run leaks nothing for it
 * to find — and it is the one `providers/recording` trusts to refuse a leaking
 * recording.
 */
import { secretFinder } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant } from './invariant.ts';
import { MIN_ENCODED_SECRET, NaiveDecodings } from './support/naive-decodings.ts';
import { runArtifacts } from './support/run-artifacts.ts';
import { secretsKeptOutObservably } from './observable/secrets-kept-out.ts';
import { secretHint } from './support/secret-hint.ts';

export const secretsNeverLeave = defineInvariant({
  id: 'invariant-15-secrets-never-leave',
  title: 'no configured secret, in any form, can be read back from anything the run stores, exports, writes or returns',
  invariant: 15,
  checkObservable: secretsKeptOutObservably,
  check: (run) => secretsKeptOut(run),
});

function secretsKeptOut(run: ScenarioRun): string | undefined {
  const secrets = run.secrets;
  if (secrets.length === 0) return undefined;
  const finders = secrets.map((secret) => ({ secret, found: secretFinder(secret) }));
  for (const { secret, found } of finders) {
    const blind = plantedCopies(secret).find(([, text]) => !found(text));
    if (blind)
      return `the kernel's secret search does not find a ${blind[0]} copy of a configured secret (${secretHint(secret)}): a leak in that form would go unseen`;
  }
  for (const [where, text] of runArtifacts(run)) {
    const haystack = text();
    const naive = new NaiveDecodings(haystack);
    for (const { secret, found } of finders) {
      if (found(haystack)) return `a configured secret (${secretHint(secret)}) can be read back from ${where}`;
      const form = naive.formOf(secret);
      if (form) return `a configured secret (${secretHint(secret)}) can be read back from ${where}, ${form}`;
    }
  }
  return undefined;
}

/** Copies of `secret` in forms any search must find (the encoded ones from 8 characters, as the redactor's). */
function plantedCopies(secret: string): [string, string][] {
  const copies: [string, string][] = [['literal', `before ${secret} after`]];
  if (secret.length < MIN_ENCODED_SECRET) return copies;
  if (/^[\x20-\x7e]+$/.test(secret))
    copies.push(['URL-encoded', `q=${[...secret].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('')}&x=1`]);
  else {
    copies.push(['URL-encoded (UTF-8)', `q=${encodeURIComponent(secret)}&x=1`]);
    copies.push(['JSON-escaped', JSON.stringify({ v: secret }).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)]);
  }
  copies.push(['base64', Buffer.from(`id:${secret}:end`, 'utf8').toString('base64')]);
  copies.push(['hex', `sig=${Buffer.from(`7;${secret}`, 'utf8').toString('hex')}`]);
  copies.push(['upper-case hex', Buffer.from(secret, 'utf8').toString('hex').toUpperCase()]);
  // Cased whole (a header a proxy normalised, a key printed in capitals): redaction removes these too.
  for (const [name, cased] of [
    ['upper-cased', secret.toUpperCase()],
    ['lower-cased', secret.toLowerCase()],
  ] as const)
    if (cased !== secret) copies.push([name, `key: ${cased};`]);
  return copies;
}
