/**
 * A compaction replaces whole closed turns, and nothing else (seed 000 §3): each
 * recorded `projection.replaced` covers a range that is not empty, lies in the log
 * before it, starts at a `turn.opened` and ends at a `turn.closed`, and neither
 * cuts through a compaction still in force when it was recorded. Checked here on
 * the log, independently of the kernel's own boundary check — so a compactor that
 * proposes a range cutting a turn or splitting a parallel batch, and a loop that
 * lets it through, fails the gate even when the history it leaves still looks
 * well formed.
 */
import type { LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';

type Replaced = Extract<LogEvent, { type: 'projection.replaced' }>;

export const compactionKeepsTurnsWhole = defineInvariant({
  id: 'compaction-keeps-turns-whole',
  title: 'every recorded compaction replaces whole closed turns and cuts through no other compaction',
  appliesTo: loopgateOnly('compactions are records of loopgate’s event log'),
  check: (run) => compactionsWhole(run),
});

function compactionsWhole(run: ScenarioRun): string | undefined {
  const events = run.log.events;
  const inForce = new Map<number, { from: number; to: number }>();
  for (const e of events) {
    if (e.opaque) continue;
    if (e.type === 'projection.restored') {
      inForce.delete((e as Extract<LogEvent, { type: 'projection.restored' }>).payload.replacement);
      continue;
    }
    if (e.type !== 'projection.replaced') continue;
    const { from, to } = (e as Replaced).payload;
    const where = `the compaction at seq ${e.seq} replaced [${from}, ${to}]`;
    if (!(from <= to)) return `${where}: an empty range`;
    if (from < 0 || to >= e.seq) return `${where}: outside the log before it`;
    if (events[from]!.type !== 'turn.opened') return `${where}: it starts at ${events[from]!.type}, not where a turn opens`;
    if (events[to]!.type !== 'turn.closed') return `${where}: it ends at ${events[to]!.type}, not where a turn closes`;
    for (const [seq, r] of inForce) {
      const disjoint = r.to < from || r.from > to;
      const contains = from <= r.from && r.to <= to;
      if (!disjoint && !contains) return `${where}: it cuts through the compaction at seq ${seq} of [${r.from}, ${r.to}]`;
    }
    inForce.set(e.seq, { from, to });
  }
  return undefined;
}
