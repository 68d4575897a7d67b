/**
 * A tool call's records belong to the step that made it: its `policy.decision`,
 * `tool.started` and `tool.result` carry the step of the `assistant.message` of
 * its turn that holds the call. A loop that loses track of a call (an executor
 * that broke its contract, a batch given up on) and answers it only later — at
 * a step no model call made — files the result under a step where no model ever
 * asked for it, and the turn's count of steps says more than it did. Checked on
 * the log alone; results crash recovery wrote are held to it too.
 */
import type { LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { viewOf } from './support/log-view.ts';

const CALL_RECORDS = new Set(['policy.decision', 'tool.started', 'tool.result']);

export const callRecordsKeepTheirStep = defineInvariant({
  id: 'call-records-keep-their-step',
  title: 'a tool call’s decision, start and result carry the step of the model message that made the call',
  appliesTo: loopgateOnly('steps are in loopgate’s event log'),
  check: (run) => recordsInTheirStep(run),
});

function recordsInTheirStep(run: ScenarioRun): string | undefined {
  for (const turn of viewOf(run).turns) {
    const stepsOf = new Map<string, Set<number>>();
    for (const e of turn.events) {
      if (e.type === 'assistant.message') {
        for (const block of e.payload.content) {
          if (block.type !== 'tool_call') continue;
          const steps = stepsOf.get(block.id) ?? new Set<number>();
          steps.add(e.payload.step);
          stepsOf.set(block.id, steps);
        }
        continue;
      }
      if (!CALL_RECORDS.has(e.type)) continue;
      const p = (e as Extract<LogEvent, { type: 'policy.decision' | 'tool.started' | 'tool.result' }>).payload;
      const steps = stepsOf.get(p.callId);
      if (steps === undefined || steps.has(p.step)) continue; // a call of no message: invariant 6 and the log's own checks
      return `turn ${turn.turn}: the ${e.type} of call ${p.callId} (seq ${e.seq}) says step ${p.step}, but the model made that call at step ${[...steps].join(', ')}`;
    }
  }
  return undefined;
}
