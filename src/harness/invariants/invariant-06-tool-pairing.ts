/**
 * Invariant 6: in every request sent, each tool call has exactly one result, in
 * one user message, in call order; no result without its call; no text after a
 * tool call in the same assistant message. Checked on every request the provider
 * received and on the final projected history, by the gate's own reading
 * (support/reference-pairing.ts), not the kernel's `checkToolPairing`.
 */
import { project } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant } from './invariant.ts';
import { pairedObservably } from './observable/tool-pairing.ts';
import { referencePairing } from './support/reference-pairing.ts';

export const toolPairing = defineInvariant({
  id: 'invariant-06-tool-pairing',
  title: 'every request pairs each tool call with exactly one result, in order',
  invariant: 6,
  checkObservable: pairedObservably,
  check: (run) => pairedInEveryRequest(run),
});

function pairedInEveryRequest(run: ScenarioRun): string | undefined {
  for (let i = 0; i < run.requests.length; i++) {
    const violation = referencePairing(run.requests[i]!.messages);
    if (violation) return `request ${i + 1}, message ${violation.messageIndex}: ${violation.problem}`;
  }
  const final = referencePairing(project(run.log.events));
  if (final) return `the final history, message ${final.messageIndex}: ${final.problem}`;
  return undefined;
}
