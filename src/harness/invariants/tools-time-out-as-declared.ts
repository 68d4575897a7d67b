/**
 * A tool's own timeout is the one in force: a call times out after the
 * `timeoutMs` its tool declares, or the pipeline's default when it declares none
 * — not after another. A tool declared with 8 s (a payment API that must answer
 * fast, or the user waits) that the loop lets hang for the 60 s default keeps the
 * turn, and the customer, waiting; one cut off before its own timeout is a
 * TIMEOUT it did not earn. Judged on the virtual clock, per run of a tool's body
 * (each attempt has its own timeout):
 *
 * - a body told it timed out (its signal aborted with a `ToolTimeoutError`) was
 *   told exactly its tool's timeout after it started;
 * - a body still running at its tool's timeout, not told to stop by then (no
 *   cancel, no shutdown), is told it timed out then: one that ran on past it
 *   untold, or ended after it, was let run past its timeout.
 *
 * The second is judged only in a case of one life (no crash, no reopen: a dead
 * process's timers never fire) that the virtual clock carried past the timeout.
 */
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';

export const toolsTimeOutAsDeclared = defineInvariant({
  id: 'tools-time-out-as-declared',
  title: 'a tool call times out after its tool’s declared timeoutMs (else the default), on the virtual clock — not after another',
  appliesTo: loopgateOnly('the signals the scripted tools were given are recorded by loopgate’s own host'),
  check: (run) => timedOutAsDeclared(run),
});

function timedOutAsDeclared(run: ScenarioRun): string | undefined {
  for (const [callId, bodies] of run.toolBodies ?? []) {
    for (const [i, body] of bodies.entries()) {
      const timeout = run.toolTimeouts.get(body.tool);
      if (!timeout || body.startedStopped) continue;
      const deadline = body.startedAt + timeout.ms;
      const which = timeout.declared ? `its declared timeoutMs, ${timeout.ms} ms` : `the default timeout, ${timeout.ms} ms (it declares none)`;
      const where = `call ${callId}: run ${i + 1} of ${body.tool} (started at ${body.startedAt} ms)`;
      const reason = body.signal.reason as { name?: unknown } | undefined;
      if (body.abortedAt !== undefined && reason?.name === 'ToolTimeoutError') {
        if (body.abortedAt !== deadline)
          return `${where} was told it timed out at ${body.abortedAt} ms, after ${body.abortedAt - body.startedAt} ms; its tool's timeout is ${which}`;
        continue;
      }
      if (body.abortedAt !== undefined && body.abortedAt <= deadline) continue; // told to stop (a cancel) before its timeout
      if (body.endedAt !== undefined && body.endedAt <= deadline) continue; // ended in time
      if (run.lives > 1 || run.thrown !== undefined || run.virtualMs <= deadline) continue;
      const ran = body.endedAt !== undefined ? `it ran until ${body.endedAt} ms` : 'it ran on';
      return `${where} was still running at ${deadline} ms, ${which}, and was not timed out: ${ran}${body.abortedAt !== undefined ? ` (told to stop only at ${body.abortedAt} ms)` : ''}`;
    }
  }
  return undefined;
}
