/**
 * Invariant 13 beyond execution counts: a STATEFUL or CRITICAL call id is started
 * once (attempt 1, never retried), and the example backend saw at most one refund
 * and one notification per call id (while those tools keep their levels).
 */
import type { ScenarioRun } from '../../harness/second-host.ts';
import { viewOf } from './log-view.ts';

export function sideEffectsStartedOnce(run: ScenarioRun): string | undefined {
  const starts = new Map<string, number>();
  for (const e of viewOf(run).known) {
    if (e.type !== 'tool.started' || (e.payload.sideEffect !== 'STATEFUL' && e.payload.sideEffect !== 'CRITICAL')) continue;
    if (e.payload.attempt !== 1) return `${e.payload.name} (${e.payload.sideEffect}) call ${e.payload.callId} was retried (attempt ${e.payload.attempt})`;
    const n = (starts.get(e.payload.callId) ?? 0) + 1;
    starts.set(e.payload.callId, n);
    if (n > 1) return `${e.payload.name} (${e.payload.sideEffect}) call ${e.payload.callId} was started ${n} times`;
  }
  for (const [what, tool, list] of [
    ['refund', 'issue_refund', run.backend.refunds],
    ['notification', 'notify_customer', run.backend.notifications],
  ] as const) {
    const level = run.sideEffectLevels.get(tool);
    if (level !== 'STATEFUL' && level !== 'CRITICAL') continue; // a scenario may declare it retryable
    const seen = new Set<string>();
    for (const item of list) {
      if (seen.has(item.callId)) return `the backend got a second ${what} for call ${item.callId}`;
      seen.add(item.callId);
    }
  }
  return undefined;
}
