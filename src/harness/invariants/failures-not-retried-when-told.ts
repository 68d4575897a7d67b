/**
 * A tool that fails with a `ToolFailure` saying it may not be retried is not run
 * again for that call (seed 003 §2.4: "a ToolFailure retries only when it says
 * it may"; `retryable` is false unless the tool sets it). The tool knows what
 * the loop cannot — that the card was declined, the address is invalid, the
 * quota is gone for the day — and a retry repeats the request it refused, or
 * worse, one it half made.
 *
 * Checked on the scripted tools' body runs (also the agent's own tools, which the
 * second host counts): a run that rejected with such a failure, before its
 * signal was aborted (a failure after a timeout or a cancel is not what decided
 * a retry), is the call's last attempt — no run of the same call with the next
 * attempt number follows it.
 */
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';

export const failuresNotRetriedWhenTold = defineInvariant({
  id: 'failures-not-retried-when-told',
  title: 'a tool call whose body failed with a ToolFailure that is not retryable is not run again',
  appliesTo: loopgateOnly('the tool body runs are recorded by loopgate’s own host'),
  check: (run) => notRetried(run),
});

function notRetried(run: ScenarioRun): string | undefined {
  for (const [callId, bodies] of run.toolBodies ?? []) {
    for (const [i, body] of bodies.entries()) {
      if (!body.failedForGood) continue;
      const again = bodies.slice(i + 1).find((b) => b.tool === body.tool && b.attempt === body.attempt + 1);
      if (again)
        return `call ${callId} to ${body.tool}: attempt ${body.attempt} failed with a ToolFailure that is not retryable, but attempt ${again.attempt} ran (at ${again.startedAt} ms)`;
    }
  }
  return undefined;
}
