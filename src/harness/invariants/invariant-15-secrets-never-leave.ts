/**
 * Invariant 15: no configured secret can be read back from anything the process
 * stores, exports, writes or returns — in any form: joined stream chunks,
 * encodings (URL-encoded, `\u`-escaped, base64), ids, error texts.
 *
 * Looked for (support/run-artifacts.ts) in the log and in each model call's
 * streamed deltas joined back together, the store, the traces, the requests sent
 * to the provider, the turn results, the host's response envelopes, and the
 * case's report in every format.
 */
import { secretFinder } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant } from './invariant.ts';
import { runArtifacts } from './support/run-artifacts.ts';
import { secretsKeptOutObservably } from './observable/secrets-kept-out.ts';

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
  for (const [where, text] of runArtifacts(run)) {
    const haystack = text();
    for (const { secret, found } of finders) if (found(haystack)) return `a configured secret (${secret.slice(0, 4)}…) can be read back from ${where}`;
  }
  return undefined;
}
