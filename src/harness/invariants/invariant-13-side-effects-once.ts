/**
 * Invariant 13: a STATEFUL or CRITICAL tool call is never executed twice for one
 * call id — not by retries, not after a crash, not when the model repeats the id.
 * Its start is recorded once (attempt 1, never retried), and the tool's body ran
 * at most once for that call (counted by the world around the tools, not by the loop).
 */
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant } from './invariant.ts';
import { viewOf } from './support/log-view.ts';

export const sideEffectsOnce = defineInvariant({
  id: 'invariant-13-side-effects-once',
  title: 'a STATEFUL or CRITICAL call is never executed twice for one call id',
  invariant: 13,
  check: (run) => startedAndRunOnce(run),
});

function startedAndRunOnce(run: ScenarioRun): string | undefined {
  const starts = new Map<string, number>();
  for (const e of viewOf(run).known) {
    if (e.type !== 'tool.started' || (e.payload.sideEffect !== 'STATEFUL' && e.payload.sideEffect !== 'CRITICAL')) continue;
    if (e.payload.attempt !== 1) return `${e.payload.name} (${e.payload.sideEffect}) call ${e.payload.callId} was retried (attempt ${e.payload.attempt})`;
    const n = (starts.get(e.payload.callId) ?? 0) + 1;
    starts.set(e.payload.callId, n);
    if (n > 1) return `${e.payload.name} (${e.payload.sideEffect}) call ${e.payload.callId} was started ${n} times`;
  }
  // The level the tool was declared with (the world's truth), not the one the loop logged.
  const toolOf = new Map<string, string>();
  for (const e of viewOf(run).known) if (e.type === 'tool.started') toolOf.set(e.payload.callId, e.payload.name);
  for (const [callId, count] of run.executionsByCall) {
    const tool = toolOf.get(callId);
    const level = tool === undefined ? undefined : run.sideEffectLevels.get(tool);
    if ((level === 'STATEFUL' || level === 'CRITICAL') && count > 1) return `${tool} (${level}) ran ${count} times for call ${callId}`;
  }
  return undefined;
}
