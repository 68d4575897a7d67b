/**
 * A call that ran may have taken effect, and its result must say so: a tool call
 * whose body ran (the world counts every execution) is never answered with a
 * "never ran" code (NOT_RUN, CANCELLED, DENIED, …), and a call that started and
 * whose outcome nobody knows — INTERRUPTED, TIMEOUT, a PIPELINE_ERROR — is
 * `unknown`, never `failed`. (A start record alone is not a run: the loop may
 * still stop the call before its body, and then say so.) Telling the model a refund that went
 * through "failed" invites it to refund again; it is what an executor that
 * breaks its contract (a started call left without a result when the turn
 * closes, or a throw after the call ran) must never turn into.
 */
import type { LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { viewOf } from './support/log-view.ts';

/** Codes that say the call never ran. */
const NEVER_RAN = new Set(['NOT_RUN', 'CANCELLED', 'DENIED', 'INVALID_ARGUMENTS', 'TOOL_NOT_AVAILABLE']);
/** Codes that say nobody knows whether a started call took effect. */
const MAY_HAVE_RUN = new Set(['INTERRUPTED', 'TIMEOUT', 'PIPELINE_ERROR']);

export const startedCallsStayUnknown = defineInvariant({
  id: 'started-calls-stay-unknown',
  title: 'a tool call that ran is never reported as not run, and one whose outcome is unknown is reported unknown',
  appliesTo: loopgateOnly('result codes and start records are in loopgate’s event log'),
  check: (run) => startedCallsHonest(run),
});

function startedCallsHonest(run: ScenarioRun): string | undefined {
  const known = viewOf(run).known;
  const started = new Set<string>();
  for (const e of known) if (e.type === 'tool.started') started.add(e.payload.callId);
  for (const e of known) {
    if (e.type !== 'tool.result') continue;
    const { callId, name, status } = (e as Extract<LogEvent, { type: 'tool.result' }>).payload;
    const code = e.payload.error?.error_code;
    if (code === undefined) continue;
    // The tool's body ran (the world counted it): whatever came of it, it may have taken effect.
    const ran = (run.executionsByToolCall.get(name)?.get(callId) ?? 0) > 0;
    const where = `call ${callId} to ${name} (seq ${e.seq})`;
    if (ran && NEVER_RAN.has(code)) return `${where} ran — it may have taken effect — but its result says ${code}: that it never ran`;
    if ((ran || started.has(callId)) && MAY_HAVE_RUN.has(code) && status !== 'unknown')
      return `${where} started and ended ${code}, but its result is ${status}: a call that may have taken effect is unknown, never failed`;
  }
  return undefined;
}
