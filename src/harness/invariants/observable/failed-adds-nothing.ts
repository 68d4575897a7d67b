/**
 * Invariant 5 from outside a loop: a turn that failed (any outcome that keeps
 * none of its steps) leaves the persisted history as it found it — not its
 * question, not a cut or refused answer.
 */
import { renderMessage } from '../../render.ts';
import type { PeerRun } from '../../loop-port/peer-run.ts';
import { addsNothing, historyAfter, labelOf } from '../support/peer-view.ts';

export function failedAddsNothingObservably(run: PeerRun): string | undefined {
  for (const r of run.reports) {
    if (!addsNothing(r.outcome)) continue;
    const before = run.histories[r.turn] ?? [];
    const after = historyAfter(run, r.turn);
    if (JSON.stringify(after) === JSON.stringify(before)) continue;
    const added = after.slice(before.length).map(renderMessage);
    return `turn ${r.turn} ended ${labelOf(r.outcome)}, but the persisted history changed (${before.length} → ${after.length} messages${added.length ? `; added: ${added.join(' / ').slice(0, 300)}` : ''})`;
  }
  return undefined;
}
