/**
 * Invariant 13 from outside a loop: a STATEFUL or CRITICAL body ran at most once per call id (counted around the tool
 * by the harness); and a call the model repeated — the same id, tool and arguments as a call of an earlier step, as
 * the harness recorded its answers — never ran again, whatever id the loop handed the body: such a change ran no
 * more often than the model gave it distinct ids (outside probe 49, MED-2: a loop renaming the repeat and running it
 * passed every search, its bodies never seeing one id twice).
 */
import { canonicalJson } from '../../../kernel/index.ts';
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
  return repeatRunAgain(run);
}

/** A change the model asked for under one id, repeated in a later step, that ran more often than it had ids. */
function repeatRunAgain(run: PeerRun): string | undefined {
  const ids = new Map<string, Set<string>>(); // tool + arguments → the ids the model gave such calls
  const repeated = new Set<string>(); // tool + arguments of calls the model sent again, id and all, in a later step
  const firstStep = new Map<string, number>(); // id + tool + arguments → the response that first gave it
  run.responses.forEach((response, step) => {
    const result = response.result;
    if (result?.type !== 'tool_use') return;
    for (const call of result.calls) {
      const change = `${call.name}\u0000${canonicalJson(call.args ?? {})}`;
      const given = `${call.id}\u0000${change}`;
      if (!ids.has(change)) ids.set(change, new Set());
      ids.get(change)!.add(call.id);
      const first = firstStep.get(given);
      if (first === undefined) firstStep.set(given, step);
      else if (first < step) repeated.add(change);
    }
  });
  if (repeated.size === 0) return undefined;
  const ran = new Map<string, number>();
  for (const t of run.toolRuns) {
    if (t.sideEffect !== 'STATEFUL' && t.sideEffect !== 'CRITICAL') continue;
    const change = `${t.name}\u0000${canonicalJson(t.args ?? {})}`;
    if (repeated.has(change)) ran.set(change, (ran.get(change) ?? 0) + 1);
  }
  for (const [change, n] of ran) {
    const given = ids.get(change)!.size;
    if (n > given) {
      const name = change.slice(0, change.indexOf('\u0000'));
      return `${name} ran ${n} times with the same arguments, which the model gave ${given === 1 ? 'one id' : `${given} ids`} (it repeated the call, id and all, in a later step): a repeat ran again`;
    }
  }
  return undefined;
}
