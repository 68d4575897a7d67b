/**
 * The production host keeps the contract no turn shows: it resumes a
 * conversation only from a snapshot that is sound (one the crash garbled is
 * refused, the conversation read whole), never refuses a snapshot it wrote
 * itself, takes the snapshots it is configured to, builds each conversation's
 * agent for that conversation, and never runs one conversation's call with
 * another's agent.
 *
 * The case's host target sees these as they happen (host-target.ts) and lists
 * them on the run (`hostBreaches`); they are the host's faults, not a throw of
 * the loop — reported here, by name, rather than as invariant 12's "the run
 * threw" with the harness's stack (outside probe 66, #9).
 */
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';

export const hostKeepsItsContract = defineInvariant({
  id: 'host-keeps-its-contract',
  title: 'the production host resumes only from sound snapshots and keeps each conversation’s agent to it',
  appliesTo: loopgateOnly("the production host is loopgate's"),
  check: (run) => breaches(run),
});

function breaches(run: ScenarioRun): string | undefined {
  const found = run.hostBreaches ?? [];
  if (found.length === 0) return undefined;
  return `${found[0]}${found.length > 1 ? ` (and ${found.length - 1} more: ${found.slice(1, 3).join('; ')}${found.length > 3 ? '; …' : ''})` : ''}`;
}
