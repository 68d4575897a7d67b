/**
 * The compactor a case runs with (the scenario's scripted one or the agent's own),
 * wrapped so the run keeps every compaction the loop asked for: the candidate the
 * loop offered, the widest range of whole closed turns the log held at that
 * moment (read here, independently of the kernel), and what the compactor proposed.
 * The invariant `compactor-offered-widest-range` holds the offer to that range: a
 * loop that offers a range one event short of the last closed turn never gets a
 * compaction applied, and every overflow ends `conversation_full` — a legal
 * outcome no other invariant objects to.
 */
import type { Compactor } from '../../kernel/index.ts';

export interface CompactionCall {
  /** Events the log held when the loop asked. */
  readonly logLength: number;
  /** What the loop offered as the candidate. */
  readonly offered: { readonly from: number; readonly to: number } | undefined;
  /** The first `turn.opened` to the last `turn.closed` of the log as it stood; undefined when no turn had closed. */
  readonly widest: { readonly from: number; readonly to: number } | undefined;
  /** What the compactor answered: a range, nothing (`null`), or a throw. */
  readonly proposed: { readonly from: number; readonly to: number } | null | 'threw';
  /** What it threw (its message), and whether the turn's signal was aborted by then (a cancel it heeded). */
  readonly threw?: { readonly message: string; readonly aborted: boolean };
  /** The agent's own compactor, not the one a scenario scripts (`compaction:`): its proposals are the agent's code. */
  readonly own?: true;
}

/** The widest replaceable range of a log: its first `turn.opened` to its last `turn.closed` (events by position). */
export function widestRange(events: readonly { readonly type: string }[]): { from: number; to: number } | undefined {
  let to = -1;
  for (let i = events.length - 1; i >= 0; i--) {
    if (events[i]!.type === 'turn.closed') {
      to = i;
      break;
    }
  }
  const from = events.findIndex((e) => e.type === 'turn.opened');
  return to < 0 || from < 0 || from > to ? undefined : { from, to };
}

export function recordedCompactor(compactor: Compactor, calls: CompactionCall[], own = false): Compactor {
  return {
    compact: async (input) => {
      const events = input.log.events;
      const base = {
        logLength: events.length,
        offered: input.candidate ? { from: input.candidate.from, to: input.candidate.to } : undefined,
        widest: widestRange(events),
        ...(own ? { own: true as const } : {}),
      };
      try {
        const proposal = await compactor.compact(input);
        calls.push({ ...base, proposed: proposal ? { from: proposal.from, to: proposal.to } : null });
        return proposal;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        calls.push({ ...base, proposed: 'threw', threw: { message, aborted: input.signal.aborted } });
        throw error;
      }
    },
  };
}
