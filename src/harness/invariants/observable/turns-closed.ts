/** Invariant 4 from outside a loop: every turn that started ended once, with an outcome from the alphabet. */
import { isOutcome } from '../../../kernel/index.ts';
import type { PeerRun } from '../../loop-port/peer-run.ts';

export function turnsClosedObservably(run: PeerRun): string | undefined {
  if (run.unsettled) return `turn ${run.unsettled.turn} never ended: it still waits on ${run.unsettled.waitingOn}, with nothing left to happen`;
  const turns = run.reports.map((r) => r.turn);
  if (new Set(turns).size !== turns.length) return `a turn was reported twice: ${JSON.stringify(turns)}`;
  for (const r of run.reports) if (!isOutcome(r.outcome)) return `turn ${r.turn} ended with ${JSON.stringify(r.outcome)}, which is not in the alphabet`;
  if (run.reports.length !== run.sent.length) return `${run.sent.length} message(s) were sent, ${run.reports.length} turn(s) ended`;
  return undefined;
}
