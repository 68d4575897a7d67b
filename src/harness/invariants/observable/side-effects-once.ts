/** Invariant 13 from outside a loop: a STATEFUL or CRITICAL body ran at most once per call id (counted around the tool by the harness). */
import type { PeerRun } from '../../loop-port/peer-run.ts';

export function sideEffectsOnceObservably(run: PeerRun): string | undefined {
  const runs = new Map<string, { name: string; level: string; n: number }>();
  for (const t of run.toolRuns) {
    if (t.sideEffect !== 'STATEFUL' && t.sideEffect !== 'CRITICAL') continue;
    // Per tool and id: a model may give calls of different tools one id.
    const key = `${t.name}\u0000${t.callId}`;
    const seen = runs.get(key) ?? { name: t.name, level: t.sideEffect, n: 0 };
    seen.n++;
    runs.set(key, seen);
    if (seen.n > 1) return `${t.name} (${t.sideEffect}) ran ${seen.n} times for call ${t.callId} (the model sent the id again, or the loop retried it)`;
  }
  return undefined;
}
