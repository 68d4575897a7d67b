/**
 * The ranges a misbehaving compactor proposes (`compaction: [{ summary, range }]`)
 * in place of the valid candidate — whole closed turns. Each is worked out from
 * the log the compactor is given, so a scenario names the mistake, not seqs:
 *
 * - `cuts-turn`: from the candidate's start to just before the last closed
 *   turn's `turn.closed` (the turn is cut off from its end);
 * - `splits-batch`: from the candidate's start to the first result of the last
 *   parallel batch (two or more calls in one assistant message) — the batch's
 *   other results are left outside;
 * - `overlaps`: from a turn inside the earliest compaction in force (not its
 *   first) to the candidate's end — it cuts through that compaction;
 * - `empty`: from the last closed turn's start to the end of the turn before it;
 * - `outside`: from the candidate's start to beyond the end of the log.
 *
 * When the log has no such range (no parallel batch, no earlier compaction, one
 * closed turn) the compactor proposes nothing.
 */
import type { EventLog, LogEvent } from '../../kernel/index.ts';
import type { CompactionRange } from '../scenario/schema.ts';

type Range = { readonly from: number; readonly to: number };

export function misbehavingRange(kind: CompactionRange, log: EventLog, candidate: Range): Range | undefined {
  const events = log.events;
  switch (kind) {
    case 'cuts-turn':
      return candidate.to - 1 > candidate.from ? { from: candidate.from, to: candidate.to - 1 } : undefined;
    case 'splits-batch': {
      for (let i = candidate.to; i >= candidate.from; i--) {
        const e = events[i]!;
        if (e.opaque || e.type !== 'assistant.message') continue;
        const calls = (e as Extract<LogEvent, { type: 'assistant.message' }>).payload.content
          .filter((b) => b.type === 'tool_call')
          .map((b) => (b as { id: string }).id);
        if (calls.length < 2) continue;
        const first = events.findIndex(
          (r, k) => k > i && !r.opaque && r.type === 'tool.result' && calls.includes((r as Extract<LogEvent, { type: 'tool.result' }>).payload.callId),
        );
        return first > 0 ? { from: candidate.from, to: first } : undefined;
      }
      return undefined;
    }
    case 'overlaps': {
      const active = log.positions.activeReplacements()[0];
      if (active === undefined) return undefined;
      const { from, to } = (events[active] as Extract<LogEvent, { type: 'projection.replaced' }>).payload;
      const inside = events.findIndex((e, k) => k > from && k < to && e.type === 'turn.opened');
      return inside > 0 ? { from: inside, to: candidate.to } : undefined;
    }
    case 'empty': {
      const lastOpened = lastIndexOf(events, 'turn.opened', candidate.to);
      const previousClosed = lastIndexOf(events, 'turn.closed', lastOpened);
      return lastOpened > candidate.from && previousClosed >= candidate.from ? { from: lastOpened, to: previousClosed } : undefined;
    }
    case 'outside':
      return { from: candidate.from, to: log.length + 5 };
  }
}

/** The last event of `type` before index `before`, or -1. */
function lastIndexOf(events: EventLog['events'], type: string, before: number): number {
  for (let i = before - 1; i >= 0; i--) if (events[i]!.type === type) return i;
  return -1;
}
