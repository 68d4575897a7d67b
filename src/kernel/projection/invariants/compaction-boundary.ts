/**
 * Compaction may only replace whole closed turns: the range starts at a
 * `turn.opened` and ends at a `turn.closed`, and does not cut through another
 * compaction. That is what keeps a compaction from orphaning tool results or
 * splitting a parallel batch (every call and its results live inside one turn).
 */
import type { AnyEvent } from '../../log/envelope.ts';

export function checkCompactionRange(
  events: readonly AnyEvent[],
  activeReplacements: readonly { readonly from: number; readonly to: number }[],
  from: number,
  to: number,
): string | undefined {
  const first = events[from];
  const last = events[to];
  if (!first || !last) return `range [${from}, ${to}] is outside the log`;
  if (first.type !== 'turn.opened') return `range must start at a turn.opened event (seq ${from} is ${first.type})`;
  if (last.type !== 'turn.closed') return `range must end at a turn.closed event (seq ${to} is ${last.type})`;
  for (const r of activeReplacements) {
    const disjoint = r.to < from || r.from > to;
    const contained = r.from >= from && r.to <= to;
    if (!disjoint && !contained) return `range [${from}, ${to}] cuts through the compaction of [${r.from}, ${r.to}]`;
  }
  return undefined;
}
