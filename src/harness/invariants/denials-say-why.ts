/**
 * A call that did not run because of a decision is told why, as the decision
 * says: one whose turn was cancelled while it waited for the approver is
 * answered `CANCELLED` ("the turn was cancelled; it did not run"), and one that
 * a policy rule, its default or the approver denied is answered `DENIED`. The two read
 * alike to a test that only asks "did it run?", but not to the model: `DENIED`
 * says a person or a rule said no ("do not retry the same call"), so a model
 * told that about a call the user merely interrupted stops offering it.
 *
 * A DENIED answer also tells the model the reason the decider gave, when it
 * gave one: a rule's own `reason`, the approver's "the approver denied this
 * call", no approver to ask, no answer in time (outside probe 69,
 * deny-reason-dropped: a denial that named its rule and dropped the reason
 * passed every property). A message cut at half the output cap must be the
 * start of the sentence that tells it.
 *
 * Read in the log: each `policy.decision` of `deny` by a policy rule, its
 * default or the approver, and the `tool.result` written for that call after it
 * in the same turn, when that result says DENIED or CANCELLED (one the loop
 * wrote because the pipeline gave none — NOT_RUN — or crash recovery wrote in a
 * later turn is not the decision's answer).
 */
import type { LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { viewOf } from './support/log-view.ts';
import { MARKER } from './tool-output-capped.ts';

type Decision = Extract<LogEvent, { type: 'policy.decision' }>;

/** The codes that say why a call did not run; a decided call the pipeline answered otherwise (ran anyway) is invariant 7's. */
const SAID_WHY: ReadonlySet<string> = new Set(['DENIED', 'CANCELLED']);

/** Who says no with DENIED; a visibility layer answers TOOL_NOT_AVAILABLE (the model never saw the tool), a budget its own code. */
const DECIDERS: ReadonlySet<string> = new Set(['approver', 'policy', 'default']);

export const denialsSayWhy = defineInvariant({
  id: 'denials-say-why',
  title: 'a call cancelled while it waited for approval is answered CANCELLED, a denied one DENIED, told the reason its decider gave',
  appliesTo: loopgateOnly('the decisions and the results are in loopgate’s event log'),
  check: (run) => saidWhy(run),
});

function saidWhy(run: ScenarioRun): string | undefined {
  const denied = new Map<string, Decision>();
  for (const e of viewOf(run).known) {
    if (e.type === 'policy.decision') {
      if (e.payload.decision === 'deny') denied.set(e.payload.callId, e);
      else denied.delete(e.payload.callId);
      continue;
    }
    if (e.type !== 'tool.result') continue;
    const decision = denied.get(e.payload.callId);
    denied.delete(e.payload.callId);
    if (!decision || decision.payload.turn !== e.payload.turn || !DECIDERS.has(decision.payload.by)) continue;
    const cancelled = decision.payload.by === 'approver' && decision.payload.rule === 'cancelled';
    const owed = cancelled ? 'CANCELLED' : 'DENIED';
    const got = e.payload.error?.error_code ?? e.payload.status;
    // Judged when the pipeline said why; a call the loop closed for it (an executor that dropped the result: NOT_RUN) is not.
    if (!SAID_WHY.has(got)) continue;
    if (got !== owed) {
      const why = cancelled ? 'its turn was cancelled while it waited for the approver' : `${decision.payload.by} denied it (${decision.payload.rule})`;
      return `call ${e.payload.callId} to ${e.payload.name}: ${why} (seq ${decision.seq}), but it was answered ${got} (seq ${e.seq}), not ${owed}`;
    }
    const reason = owed === 'DENIED' ? reasonGiven(run, decision) : undefined;
    if (reason === undefined || run.secrets.some((s) => s.length > 0 && reason.includes(s))) continue;
    const { by, rule } = decision.payload;
    const told = `${e.payload.name} was denied (${by}: ${rule}): ${reason}. It did not run.`;
    const message = e.payload.error?.error_message ?? '';
    const cut = MARKER.exec(message);
    if (cut ? !told.startsWith(message.slice(0, cut.index)) : !message.includes(`(${by}: ${rule}): ${reason}.`))
      return `call ${e.payload.callId} to ${e.payload.name}: ${by} denied it (${rule}) saying "${reason}" (seq ${decision.seq}), but the model was not told that (seq ${e.seq}): ${JSON.stringify(message.slice(0, 200))}`;
  }
  return undefined;
}

/**
 * The reason the decider gave for a denial, when the case knows it: a policy rule's own `reason` (the permissions the
 * case ran with), or the loop's fixed reasons for an approver's no, no approver, and no answer in time. The approver's
 * invalid answers and errors carry their own details, and a default deny none: not judged.
 */
function reasonGiven(run: ScenarioRun, decision: Decision): string | undefined {
  const { by, rule } = decision.payload;
  if (by === 'policy') return run.permissions.policy?.rules?.find((r) => r.id === rule)?.reason;
  if (by === 'approver') return rule === 'approver_invalid_answer' || rule === 'approver_error' ? undefined : 'the approver denied this call';
  if (by === 'default' && rule === 'no_approver') return 'approval is required and no approver is configured';
  if (by === 'default' && rule === 'approval_timeout') return 'no answer from the approver in time';
  return undefined;
}
