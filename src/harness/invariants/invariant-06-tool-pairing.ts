/**
 * Invariant 6: in every request sent, each tool call has exactly one result, in
 * one user message, in call order; no result without its call; no text after a
 * tool call in the same assistant message. Checked on every request the provider
 * received and on the final projected history, by the gate's own reading
 * (support/reference-pairing.ts), not the kernel's `checkToolPairing`.
 *
 * One history is judged as the store held it, not as a process would close it:
 * after a crash that left the store unreadable (a seq gap, a garbled record: the
 * reopened host refuses it and no recovery runs over it), the turn the crash left
 * open stays open (invariant 4 accepts that too), and the calls it had in flight
 * have no result yet — by construction, not by a fault of the host. Those calls,
 * and only at the end of the final history, are not a violation.
 */
import { project } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant } from './invariant.ts';
import { viewOf } from './support/log-view.ts';
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
  const final = referencePairing(project(run.log.events), callsLeftOpen(run));
  if (final) return `the final history, message ${final.messageIndex}: ${final.problem}`;
  return undefined;
}

/** The calls without a result of the turn an unreadable store left open (the last turn, never closed); else none. */
function callsLeftOpen(run: ScenarioRun): ReadonlySet<string> {
  const last = viewOf(run).turns.at(-1);
  if (run.unreadable === undefined || !last || last.closedSeq !== undefined) return new Set();
  const calls = new Set<string>();
  for (const e of last.events) {
    if (e.type === 'assistant.message') for (const b of e.payload.content) if (b.type === 'tool_call') calls.add(b.id);
    if (e.type === 'tool.result') calls.delete(e.payload.callId);
  }
  return calls;
}
