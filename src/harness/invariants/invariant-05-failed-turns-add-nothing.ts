/**
 * Invariant 5: a failed turn adds nothing to the projection; its events remain
 * in the log. No call of a turn that did not keep its steps reaches the
 * projected history (cancelled and interrupted turns keep what the model
 * completed; see `keepsCompletedSteps`).
 */
import { keepsCompletedSteps, project, type Outcome } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant } from './invariant.ts';
import { viewOf } from './support/log-view.ts';
import { failedAddsNothingObservably } from './observable/failed-adds-nothing.ts';

export const failedTurnsAddNothing = defineInvariant({
  id: 'invariant-05-failed-turns-add-nothing',
  title: 'failed turns add nothing to the projected history; their events remain in the log',
  invariant: 5,
  checkObservable: failedAddsNothingObservably,
  check: (run) => failedTurnsLeftOut(run),
});

function failedTurnsLeftOut(run: ScenarioRun): string | undefined {
  const known = viewOf(run).known;
  const outcomes = new Map<number, Outcome>();
  for (const e of known) if (e.type === 'turn.closed') outcomes.set(e.payload.turn, e.payload.outcome as Outcome);
  const dropped = new Map<string, number>();
  for (const e of known) {
    if (e.type !== 'assistant.message') continue;
    const outcome = outcomes.get(e.payload.turn);
    if (outcome && !keepsCompletedSteps(outcome)) for (const b of e.payload.content) if (b.type === 'tool_call') dropped.set(b.id, e.payload.turn);
  }
  for (const m of project(run.log.events)) {
    for (const b of m.content) {
      const id = b.type === 'tool_call' ? b.id : b.type === 'tool_result' ? b.callId : undefined;
      if (id !== undefined && dropped.has(id))
        return `call ${id} of turn ${dropped.get(id)} (which ended ${outcomes.get(dropped.get(id)!)?.kind}) is in the projected history`;
    }
  }
  return undefined;
}
