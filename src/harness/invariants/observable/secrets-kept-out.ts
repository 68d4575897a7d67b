/** Invariant 15 from outside a loop: no configured secret in what the peer persisted, traced, sent to the model or returned. */
import { containsSecret } from '../../../kernel/index.ts';
import type { PeerRun } from '../../loop-port/peer-run.ts';
import { secretHint } from '../support/secret-hint.ts';

export function secretsKeptOutObservably(run: PeerRun): string | undefined {
  if (run.secrets.length === 0) return undefined;
  const artifacts: [string, () => string][] = [
    ['the persisted history', () => JSON.stringify(run.histories)],
    // What the app keeps for the next turn outside its history (a notice), even when no next turn came (outside probe 45, F6).
    ['the messages kept for the next turn', () => JSON.stringify(run.waiting)],
    ['the spans', () => JSON.stringify(run.traces)],
    ['the requests sent to the model', () => JSON.stringify(run.requests)],
    ['the turn replies', () => JSON.stringify(run.reports)],
  ];
  for (const [where, text] of artifacts) {
    const haystack = text();
    for (const secret of run.secrets) if (containsSecret(haystack, secret)) return `a configured secret (${secretHint(secret)}) can be read back from ${where}`;
  }
  return undefined;
}
