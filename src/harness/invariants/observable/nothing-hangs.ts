/**
 * Invariant 12 from outside a loop: the loop never hangs and never throws past
 * its caller unclassified — every turn settles (a peer's throw is classified by
 * its adapter into the alphabet; a `failed{internal}` from an adapter that
 * rejected is a bug), and the world threw nothing.
 */
import type { PeerRun } from '../../loop-port/peer-run.ts';
import { VirtualClockStallError } from '../../virtual-clock.ts';

export function nothingHangsObservably(run: PeerRun): string | undefined {
  // The case's clock saw nothing left to fire and no progress: starved, not a throw (as invariant-12-nothing-throws.ts says it).
  if (run.thrown instanceof VirtualClockStallError) return `the case never finished: ${run.thrown.message}`;
  if (run.thrown !== undefined) return `the run threw: ${(run.thrown as Error)?.stack ?? String(run.thrown)}`;
  if (run.unsettled)
    return `turn ${run.unsettled.turn} never settled: it waits on ${run.unsettled.waitingOn}, which never returns, and the loop does not stop waiting`;
  const rejected = run.reports.find((r) => r.outcome.kind === 'failed' && r.outcome.detail?.startsWith('the adapter rejected'));
  if (rejected) return `turn ${rejected.turn}: ${rejected.outcome.kind === 'failed' ? rejected.outcome.detail : ''}`;
  return undefined;
}
