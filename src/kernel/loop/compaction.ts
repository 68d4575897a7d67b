/**
 * Applying a compaction (seed 000 §3): a `projection.replaced` event replaces a
 * range of closed turns by a summary; the originals stay in the log, so it can be
 * undone (`projection.restored`) and audited. Invariant 10: the loop retries an
 * overflowing request only if the projection actually shrank; a proposal that
 * would not shrink it is not applied.
 */
import type { EventLog } from '../log/event-log.ts';
import { checkCompactionRange } from '../projection/invariants/compaction-boundary.ts';
import { estimateTokens } from '../projection/estimate.ts';
import { project, type ProjectionCache } from '../projection/projection.ts';
import type { CompactionReport } from './model-errors.ts';
import { restatedSideEffects } from './compaction-notice.ts';
import type { Compactor } from './types.ts';

/** The widest replaceable range: the first turn not inside a compaction, to the last closed turn. */
export function compactionCandidate(log: EventLog): { from: number; to: number } | undefined {
  const events = log.events;
  let lastClosed = -1;
  for (let i = events.length - 1; i >= 0; i--) {
    if (events[i]!.type === 'turn.closed') {
      lastClosed = i;
      break;
    }
  }
  if (lastClosed < 0) return undefined;
  const first = events.findIndex((e) => e.type === 'turn.opened');
  if (first < 0 || first > lastClosed) return undefined;
  return { from: first, to: lastClosed };
}

function activeRanges(log: EventLog): { from: number; to: number }[] {
  return log.positions.activeReplacements().map((seq) => {
    const e = log.at(seq)!;
    const p = e.payload as { from: number; to: number };
    return { from: p.from, to: p.to };
  });
}

export async function applyCompaction(
  log: EventLog,
  projection: ProjectionCache,
  compactor: Compactor | undefined,
  signal: AbortSignal,
): Promise<CompactionReport> {
  const before = estimateTokens(projection.current());
  if (!compactor) return { shrank: false, tokensBefore: before, tokensAfter: before, detail: 'no compactor configured' };
  let proposal;
  try {
    proposal = await compactor.compact({ log, messages: projection.current(), candidate: compactionCandidate(log), signal });
  } catch (error) {
    return { shrank: false, tokensBefore: before, tokensAfter: before, detail: `compactor failed: ${(error as Error).message}` };
  }
  if (!proposal) return { shrank: false, tokensBefore: before, tokensAfter: before, detail: 'nothing to compact' };
  const problem = checkCompactionRange(log.events, activeRanges(log), proposal.from, proposal.to);
  if (problem) return { shrank: false, tokensBefore: before, tokensAfter: before, detail: `refused: ${problem}` };
  // Side effects the range alone told the model of are restated after the summary (invariant 14).
  const restated = restatedSideEffects(log, proposal.from, proposal.to);
  const summary = restated === undefined ? proposal.summary : `${proposal.summary}\n${restated}`;

  // Measure the projection with the replacement before writing it: only a
  // compaction that shrinks the history is worth recording and retrying on.
  const hypothetical = {
    type: 'projection.replaced',
    seq: log.length,
    v: 1,
    at: 0,
    ignorable: false,
    payload: { from: proposal.from, to: proposal.to, summary, tokensBefore: before, tokensAfter: 0 },
  } as const;
  const after = estimateTokens(project([...log.events, hypothetical]));
  if (after >= before) {
    return { shrank: false, tokensBefore: before, tokensAfter: after, detail: `the summary is not smaller (${after} ≥ ${before} tokens)` };
  }
  const replaced = log.append(
    'projection.replaced',
    { from: proposal.from, to: proposal.to, summary, tokensBefore: before, tokensAfter: after },
    { sources: [proposal.from, proposal.to] },
  );
  return { shrank: true, tokensBefore: before, tokensAfter: after, detail: `replaced [${proposal.from}, ${proposal.to}] (seq ${replaced.seq})` };
}

/** Undoes a compaction: the replaced range is projected again from the originals. */
export function undoCompaction(log: EventLog, replacementSeq: number): void {
  log.append('projection.restored', { replacement: replacementSeq });
}
