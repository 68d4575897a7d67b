/**
 * The agent's own tools stop when told: a body of a tool with side effects
 * (IDEMPOTENT, STATEFUL, CRITICAL) whose signal was aborted while it ran — a
 * cancel, a shutdown, a timeout — has ended within a second (real time) of it.
 * The loop answers such a call at once (unknown / INTERRUPTED or TIMEOUT) and
 * moves on; a tool deaf to its signal goes on and makes its change after the
 * user pressed Stop, or after the turn told the model the call timed out. The
 * case, judged the moment the loop handed the turn back, never saw that write:
 * a team's tool that ignored its signal passed the gate (outside probe 52, MED-2).
 *
 * This judges the agent's code, not the loop's: only bodies that ran the tool's
 * own `run` — a scenario's scripted behaviours (`hang`, `slow` with
 * `ignoresSignal`) are faults of the world the loop must survive. Before the
 * case is judged the harness waits up to that second for such bodies
 * (world/scripted-tools.ts, `waitForToldToStop`; the case's virtual time goes
 * on meanwhile), so a deaf one that ends soon after has its late write seen by
 * the case's other checks (a team's own invariant about writes after a cancel).
 * One that ended, but more than that second of the agent's clock after it was
 * told — a wait on the clock that ignores its signal, then the write — ran on
 * as much: judged the same (outside probe 53, MED-1: a restart written 1.6 s
 * after the user's Stop passed the gate and fuzz). Read-only tools (NONE) are not judged:
 * running on costs time, not a change nobody asked for.
 */
import type { ScenarioRun } from '../second-host.ts';
import { TOLD_TO_STOP_GRACE_MS } from '../world/scripted-tools.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';

export const toolsStopWhenTold = defineInvariant({
  id: 'tools-stop-when-told',
  title: `the agent's own tools with side effects end within ${TOLD_TO_STOP_GRACE_MS / 1000} s (real time and the agent's clock) once their signal is aborted: none runs on after a cancel, shutdown or timeout`,
  appliesTo: loopgateOnly('the signals the agent’s tools were given are recorded by loopgate’s own host'),
  check: (run) => stoppedWhenTold(run),
});

function stoppedWhenTold(run: ScenarioRun): string | undefined {
  // A crash stops the process, its tool bodies with it; the harness, which keeps them running, aborts their signals:
  // bodies told to stop at a crash are not judged (review of stop 57, L3).
  const crashes = new Set(run.faults.filter((f) => f.label === 'the process crashes').map((f) => f.at));
  for (const [callId, bodies] of run.toolBodies ?? []) {
    for (const body of bodies) {
      if (!body.ownCode || body.abortedAt === undefined || body.abortedAfterEnd || crashes.has(body.abortedAt)) continue;
      // Ran on in real time (its own I/O), or on the agent's clock (a wait that ignores the signal it was given).
      const ranOn = body.endedAt !== undefined && body.endedAt - body.abortedAt > TOLD_TO_STOP_GRACE_MS ? body.endedAt - body.abortedAt : undefined;
      if (body.runningAfterAbortMs === undefined && ranOn === undefined) continue;
      const level = run.sideEffectLevels.get(body.tool);
      if (level === undefined || level === 'NONE') continue;
      const why = describeReason(body.signal.reason);
      const told = `${body.tool} (${level}), call ${callId}, was told to stop (its signal aborted${why} at ${body.abortedAt} ms) and `;
      const advice =
        ': a tool deaf to its signal makes its change after the turn moved on — pass ctx.signal to the request it makes, or check it before writing';
      return ranOn !== undefined
        ? `${told}ran on for ${ranOn} ms of the agent's clock (it ended at ${body.endedAt} ms)${advice}`
        : `${told}was still running ${body.runningAfterAbortMs} ms later, when the case was judged${advice}`;
    }
  }
  return undefined;
}

function describeReason(reason: unknown): string {
  const name = (reason as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' && name !== 'Error' && name !== 'AbortError' ? `, ${name}` : '';
}
