/**
 * Only parallel-safe calls run together: "consecutive parallel-safe calls run
 * together; anything else runs alone, in order". A call of a tool that is not
 * parallel-safe (a refund, a fraud lock) starts only once every earlier call of
 * its step has its result, and no other call of the step starts before its own
 * result is written. A loop that swept such a call into a parallel batch would
 * run a refund at the same time as — or before — the lock the model asked for
 * first, and the history would still read in call order. Judged on the log: the
 * order of each step's `tool.started` and `tool.result` records (a call's first
 * start; a result written at turn close for a call that never started does not
 * count as running).
 */
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { viewOf } from './support/log-view.ts';

export const toolsAloneUnlessParallelSafe = defineInvariant({
  id: 'tools-alone-unless-parallel-safe',
  title: 'a call of a tool that is not parallel-safe runs alone, after every earlier call of its step and before every later one',
  appliesTo: loopgateOnly('the order of starts and results is in loopgate’s event log'),
  check: (run) => aloneUnlessParallelSafe(run),
});

function aloneUnlessParallelSafe(run: ScenarioRun): string | undefined {
  const parallelSafe = run.parallelSafeTools;
  if (parallelSafe === undefined) return undefined;
  for (const turn of viewOf(run).turns) {
    // Each step's calls in the order the model made them, with the seq of their first start and of their result.
    const steps = new Map<number, { id: string; tool: string; started?: number; result?: number }[]>();
    const byId = new Map<string, { id: string; tool: string; started?: number; result?: number }>();
    for (const e of turn.events) {
      if (e.type === 'assistant.message') {
        for (const block of e.payload.content) {
          if (block.type !== 'tool_call') continue;
          const call = { id: block.id, tool: block.name };
          const list = steps.get(e.payload.step) ?? [];
          list.push(call);
          steps.set(e.payload.step, list);
          byId.set(block.id, call);
        }
      } else if (e.type === 'tool.started') {
        const call = byId.get(e.payload.callId);
        if (call && call.started === undefined) call.started = e.seq;
      } else if (e.type === 'tool.result') {
        const call = byId.get(e.payload.callId);
        if (call && call.result === undefined) call.result = e.seq;
      }
    }
    for (const [step, calls] of steps) {
      for (const [k, c] of calls.entries()) {
        if (parallelSafe.has(c.tool) || c.started === undefined) continue;
        const end = c.result ?? Number.POSITIVE_INFINITY;
        for (const [j, other] of calls.entries()) {
          if (j === k || other.started === undefined) continue;
          const otherEnd = other.result ?? Number.POSITIVE_INFINITY;
          const overlaps = other.started < end && otherEnd > c.started;
          const outOfOrder = j < k ? other.started > c.started : other.started < c.started;
          if (overlaps || outOfOrder)
            return `turn ${turn.turn}, step ${step}: ${c.tool} (call ${c.id}) is not parallel-safe, but call ${other.id} (${other.tool}, ${j < k ? 'before' : 'after'} it in the step) ${overlaps ? 'ran at the same time' : 'ran out of order'}: ${c.id} started at seq ${c.started}${c.result !== undefined ? `, its result at seq ${c.result}` : ''}; ${other.id} started at seq ${other.started}${other.result !== undefined ? `, its result at seq ${other.result}` : ''}`;
        }
      }
    }
  }
  return undefined;
}
