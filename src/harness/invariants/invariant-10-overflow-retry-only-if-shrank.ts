/**
 * Invariant 10: after a context overflow the loop retries only if a compaction
 * actually shrank the projection (recorded, smaller, and the next request really
 * is smaller); otherwise the turn ends `conversation_full`. A compaction that does
 * not shrink is never recorded, and a step compacts at most
 * `maxCompactionsPerStep` times — and, while it has compactions left, gives up on
 * an overflow only after one that did not shrink.
 */
import { estimateTokens, project, type LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly, unlessHostSupplied } from './invariant.ts';
import { label, viewOf } from './support/log-view.ts';

export const overflowRetryOnlyIfShrank = defineInvariant({
  id: 'invariant-10-overflow-retry-only-if-shrank',
  title: 'an overflow is retried only if compaction shrank the projection; otherwise conversation_full',
  invariant: 10,
  appliesTo: loopgateOnly('no compactor: an overflow cannot be retried after shrinking', unlessHostSupplied('errorHandlers')),
  check: (run) => overflowRetriedOnlyIfShrank(run),
});

function overflowRetriedOnlyIfShrank(run: ScenarioRun): string | undefined {
  const view = viewOf(run);
  const events = run.log.events;
  for (const e of view.known) {
    if (e.type === 'projection.replaced' && !(e.payload.tokensAfter < e.payload.tokensBefore)) {
      return `a compaction that did not shrink the history was recorded (seq ${e.seq}: ${e.payload.tokensBefore} → ${e.payload.tokensAfter} tokens)`;
    }
  }
  const compactionsPerStep = new Map<string, number>();
  for (const r of view.requests) {
    const result = r.result?.payload.result;
    if (result?.type !== 'context_window_exceeded') continue;
    const { turn, step, attempt } = r.event.payload;
    const where = `turn ${turn} step ${step} attempt ${attempt}`;
    const outcome = view.turns.find((t) => t.turn === turn)?.outcome;
    if (!r.handled) {
      if (outcome?.kind !== 'cancelled') return `${where}: an overflow was neither handled nor followed by a cancel (the turn ended ${label(outcome)})`;
      continue;
    }
    const between = events
      .slice(r.result!.seq + 1, r.handled.seq)
      .filter((x): x is Extract<LogEvent, { type: 'projection.replaced' }> => x.type === 'projection.replaced' && !x.opaque);
    const stepKey = `${turn}/${step}`;
    compactionsPerStep.set(stepKey, (compactionsPerStep.get(stepKey) ?? 0) + between.length);
    if ((compactionsPerStep.get(stepKey) ?? 0) > run.config.maxCompactionsPerStep) {
      return `${where}: ${compactionsPerStep.get(stepKey)} compactions in one step (at most ${run.config.maxCompactionsPerStep})`;
    }
    if (r.handled.payload.action === 'retry') {
      if (between.length === 0) return `${where}: the overflow was retried without a compaction`;
      const next = view.requests[r.index + 1];
      if (next && next.event.payload.turn === turn && next.event.payload.step === step) {
        const before = estimateTokens(project(events.slice(0, r.event.payload.upTo)));
        const after = estimateTokens(project(events.slice(0, next.event.payload.upTo)));
        if (!(after < before)) return `${where}: retried after a compaction, but the next request is not smaller (${before} → ${after} tokens)`;
      }
    } else if (r.handled.payload.action === 'fail') {
      // The built-in handler gives up only when the step's compactions are spent or one did not shrink.
      const { handler, detail } = r.handled.payload;
      const done = compactionsPerStep.get(stepKey) ?? 0;
      if (handler === 'compact-on-overflow' && done < run.config.maxCompactionsPerStep && !detail.startsWith('compaction did not shrink')) {
        return `${where}: the step had compacted ${done} of ${run.config.maxCompactionsPerStep} times, yet the chain gave up without compacting${done > 0 ? ' again' : ''} (${JSON.stringify(detail)})`;
      }
      // A cancel that cut the compaction short wins: the turn ends cancelled.
      const cancelledMeanwhile = outcome?.kind === 'cancelled' && view.turns.find((t) => t.turn === turn)?.events.some((x) => x.type === 'cancel.requested');
      // A store that refused the close's write: the turn fails persistence, or the host's recovery closes it interrupted.
      const closedByRecovery = outcome?.kind === 'interrupted' && view.turns.find((t) => t.turn === turn)?.recovered === true;
      if (
        outcome &&
        outcome.kind !== 'conversation_full' &&
        !cancelledMeanwhile &&
        !closedByRecovery &&
        !(outcome.kind === 'failed' && outcome.reason === 'persistence')
      ) {
        return `${where}: the overflow could not be fixed, so the turn must end conversation_full, but it ended ${label(outcome)}`;
      }
    } else {
      return `${where}: an overflow was answered with ${r.handled.payload.action}`;
    }
  }
  return undefined;
}
