/**
 * The loop offers the compactor the widest range it may replace: from the log's
 * first `turn.opened` to its last `turn.closed` (DESIGN: "the widest replaceable
 * range"). The run keeps every offer (recorded-compactor.ts) with that range read
 * from the log as it stood, independently of the kernel.
 *
 * Without this, a loop whose candidate ends one event early offers a range that
 * cuts the last turn: the loop's own boundary check refuses every compaction, and
 * every overflow ends `conversation_full` — a legal outcome, so the other
 * invariants see nothing wrong while compaction has silently stopped working.
 */
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';

export const compactorOfferedWidestRange = defineInvariant({
  id: 'compactor-offered-widest-range',
  title: 'the compactor is offered the widest range of whole closed turns the log holds',
  appliesTo: loopgateOnly("a peer's compaction hook is its own: its offers are not recorded", (run) =>
    (run.compactions ?? []).length === 0 ? 'no compaction was asked for' : undefined,
  ),
  check: (run) => offeredWidest(run),
});

const show = (r: { from: number; to: number } | undefined) => (r ? `[${r.from}, ${r.to}]` : 'none');

function offeredWidest(run: ScenarioRun): string | undefined {
  for (const [i, c] of (run.compactions ?? []).entries()) {
    if (c.offered?.from !== c.widest?.from || c.offered?.to !== c.widest?.to) {
      return `compaction ${i + 1} (log of ${c.logLength} events): the loop offered the compactor ${show(c.offered)}, but the widest range of whole closed turns is ${show(c.widest)}`;
    }
  }
  return undefined;
}
