/**
 * Invariant 4 seen from the trace and the results: one trace per turn, its turn
 * span `ok` and carrying the outcome, and the outcome the loop returned is the one
 * it logged — except `failed{persistence}` returned for a turn whose close the
 * store refused to write (the log keeps what the turn did).
 */
import { outcomeLabel } from '../../kernel/index.ts';
import type { ScenarioRun } from '../../harness/second-host.ts';
import { label, viewOf } from './log-view.ts';

export function tracesCarryOutcomes(run: ScenarioRun): string | undefined {
  const turns = viewOf(run).turns;
  if (run.traces.length !== run.results.length) return `${run.results.length} turn(s) returned but ${run.traces.length} trace(s) ended`;
  for (let i = 0; i < run.results.length; i++) {
    const result = run.results[i]!;
    const logged = turns.find((t) => t.turn === result.turn);
    const returned = outcomeLabel(result.outcome);
    if (!logged) return `turn ${result.turn} was returned but never logged`;
    // One divergence is by design: the turn closed in the log, then the write of that close failed; the log keeps what the
    // turn did and the caller (and the trace) learn it is not durable.
    const closeNotStored = returned === 'failed{persistence}' && run.storeWrites.failed.length > 0;
    if (label(logged.outcome) !== returned && !closeNotStored) return `turn ${result.turn} returned ${returned} but the log says ${label(logged.outcome)}`;
    const root = run.traces[i]!.spans.find((s) => s.kind === 'turn');
    if (!root) return `the trace of turn ${result.turn} has no turn span`;
    if (root.status !== 'ok') return `the turn span of turn ${result.turn} ended ${String(root.status)}: turns never error`;
    if (root.attributes['outcome'] !== returned) return `the turn span of turn ${result.turn} carries ${String(root.attributes['outcome'])}, not ${returned}`;
  }
  return undefined;
}
