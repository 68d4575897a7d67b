/**
 * Invariant 12 from outside a loop: the loop never hangs and never throws past
 * its caller unclassified — every turn settles (a peer's throw is classified by
 * its adapter into the alphabet; a `failed{internal}` from an adapter that
 * rejected is a bug), and the world threw nothing.
 */
import type { PeerRun } from '../../loop-port/peer-run.ts';

export function nothingHangsObservably(run: PeerRun): string | undefined {
  if (run.thrown !== undefined) return `the run threw: ${(run.thrown as Error)?.stack ?? String(run.thrown)}`;
  if (run.unsettled)
    return `turn ${run.unsettled.turn} never settled: it waits on ${run.unsettled.waitingOn}, which never returns, and the loop does not stop waiting`;
  const rejected = run.reports.find((r) => r.outcome.kind === 'failed' && r.outcome.detail?.startsWith('the adapter rejected'));
  if (rejected) return `turn ${rejected.turn}: ${rejected.outcome.kind === 'failed' ? rejected.outcome.detail : ''}`;
  return undefined;
}
