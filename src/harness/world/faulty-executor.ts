/**
 * A tool executor that breaks its contract — every call settles with exactly one
 * result — for the tools a scenario names (`tools: [{ name, executor }]`). A team
 * can hand the loop its own executor (`LoopDepsInput.tools`), and one with a bug
 * behaves like this:
 *
 * - `drops-result`: runs the call (it starts, its body runs), then resolves with
 *   no result at all;
 * - `throws-after-start`: runs the call, then throws.
 *
 * Either way the call may have taken effect, so the loop must answer it `unknown`
 * (it may have run; never "failed", which tells the model a refund that happened
 * did not) — whether the loop notices at once or only when the turn closes.
 */
import type { LoopDeps, SettledToolCall, ToolExecutor } from '../../kernel/index.ts';
import type { ExecutorFault, Scenario } from '../scenario/schema.ts';
import type { FaultLog } from './fault-log.ts';

/** The tools whose calls the executor mishandles, and how. */
export function executorFaults(scenario: Scenario): ReadonlyMap<string, ExecutorFault> {
  return new Map(scenario.tools.flatMap((t) => (t.executor ? [[t.name, t.executor] as const] : [])));
}

export function faultyExecutor(inner: ToolExecutor, faults: ReadonlyMap<string, ExecutorFault>, log: FaultLog): ToolExecutor {
  return {
    specs: () => inner.specs(),
    parallelSafe: (name) => inner.parallelSafe(name),
    execute: async (call, ctx) => {
      const settled = await inner.execute(call, ctx);
      const fault = faults.get(call.name);
      if (fault === 'drops-result') {
        log.record(`tool executor drops the result of ${call.id}`);
        return undefined as unknown as SettledToolCall;
      }
      if (fault === 'throws-after-start') {
        log.record(`tool executor throws after running ${call.id}`);
        throw new Error(`tool executor failed after running ${call.name}`);
      }
      return settled;
    },
  };
}

/** The loop's dependencies with the faulty executor, when the scenario names one. */
export function withExecutorFaults(scenario: Scenario, log: FaultLog): ((deps: LoopDeps) => LoopDeps) | undefined {
  const faults = executorFaults(scenario);
  if (faults.size === 0) return undefined;
  return (deps) => ({ ...deps, tools: faultyExecutor(deps.tools, faults, log) });
}
