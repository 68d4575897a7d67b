/**
 * Invariant 15: no configured secret can be read back from anything the process
 * stores, exports, writes or returns.
 *
 * Looked for in the log, the store, the traces and the turn results (replies and
 * outcome details the host would return).
 */
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant } from './invariant.ts';

export const secretsNeverLeave = defineInvariant({
  id: 'invariant-15-secrets-never-leave',
  title: 'no configured secret can be read back from the log, the store, the traces or the results',
  invariant: 15,
  check: (run) => secretsKeptOut(run),
});

function secretsKeptOut(run: ScenarioRun): string | undefined {
  const secrets = run.secrets;
  if (secrets.length === 0) return undefined;
  const places: [string, () => string][] = [
    ['the log', () => JSON.stringify(run.log.events)],
    ['the store', () => JSON.stringify(run.store.peek('case'))],
    ['the traces', () => JSON.stringify(run.traces)],
    ['the turn results', () => JSON.stringify(run.results.map(({ trace: _trace, ...rest }) => rest))],
  ];
  for (const [where, text] of places) {
    const haystack = text();
    for (const secret of secrets) if (haystack.includes(secret)) return `a configured secret (${secret.slice(0, 4)}…) was found in ${where}`;
  }
  return undefined;
}
