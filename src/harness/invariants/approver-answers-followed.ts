/**
 * What the approver said is what was done. The log records each decision and who
 * made it; the run keeps every answer the approver actually gave (the scenario's
 * scripted approver or the agent's own, recorded around it). A decision the log
 * puts on the approver must be that answer — approve is allow, deny is deny; an
 * answer that was neither, or an approver that threw, is a deny — and a call the
 * approver turned down never starts.
 *
 * The log alone cannot show this: a pipeline that turns the human's "no" into an
 * allow writes a decision "by the approver" as consistent as a real one, and the
 * refund runs (invariant 7 sees only that the approver decided).
 */
import type { LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { isPeerRun } from '../loop-port/peer-run.ts';
import { defineInvariant } from './invariant.ts';

export const approverAnswersFollowed = defineInvariant({
  id: 'approver-answers-followed',
  title: 'a decision put on the approver is the answer it gave, and a call it denied never starts',
  appliesTo: (run) =>
    isPeerRun(run) && !run.loop.capabilities.supports.includes('approver')
      ? `${run.loop.id}: its approval hook, if any, is its own: its answers are not recorded`
      : undefined,
  check: (run) => followed(run),
  // A peer that asks the case's approver (`approver` capability): what it asked is recorded around the approver, and
  // every tool body around the tool — a call it was not told yes for never runs; and a call the agent's own tool holds
  // for approval (`needsApproval`) runs only on a yes (review of stop 53: a loop that declared it asks, and never
  // asked, ran held calls unseen).
  checkObservable: (run) => {
    for (const a of run.approvals ?? []) {
      if (a.answer === 'approve') continue;
      if (run.toolRuns.some((t) => t.name === a.tool && t.callId === a.callId))
        return `call ${a.callId} (${a.tool}): the approver answered ${a.answer}, but its body ran`;
    }
    for (const t of run.toolRuns) {
      if (!run.heldForApproval?.(t.name, t.args)) continue;
      if (!(run.approvals ?? []).some((a) => a.tool === t.name && a.callId === t.callId && a.answer === 'approve'))
        return `call ${t.callId} (${t.name}): the tool holds it for approval (needsApproval), but its body ran without a yes from the approver`;
    }
    return undefined;
  },
});

/** The log's rules for decisions the approver made without a yes or a no. */
const NOT_ANSWERED = new Set(['approver_invalid_answer', 'approver_error', 'cancelled']);

function followed(run: ScenarioRun): string | undefined {
  const answers = new Map<string, string>();
  for (const a of run.approvals) answers.set(a.callId, a.answer);
  const started = new Set<string>();
  for (const e of run.log.events) if (!e.opaque && e.type === 'tool.started') started.add((e as Extract<LogEvent, { type: 'tool.started' }>).payload.callId);
  for (const e of run.log.events) {
    if (e.opaque || e.type !== 'policy.decision') continue;
    const d = (e as Extract<LogEvent, { type: 'policy.decision' }>).payload;
    if (d.by !== 'approver') continue;
    const where = `call ${d.callId} (${d.tool}, seq ${e.seq})`;
    const answer = answers.get(d.callId);
    if (NOT_ANSWERED.has(d.rule)) {
      if (d.decision !== 'deny') return `${where}: the approver gave no yes (${d.rule}), but the log records ${d.decision}`;
      if (d.rule !== 'cancelled' && (answer === 'approve' || answer === 'deny'))
        return `${where}: the log says the approver answered badly (${d.rule}), but it answered ${answer}`;
      continue;
    }
    if (answer === undefined) return `${where}: the log records ${d.decision} by the approver, but the approver never answered for this call`;
    const meant = answer === 'approve' ? 'allow' : 'deny';
    if (d.decision !== meant) return `${where}: the approver answered ${answer}, but the log records ${d.decision} by the approver`;
    if (meant === 'deny' && started.has(d.callId)) return `${where}: the approver answered deny, but the call started`;
  }
  return undefined;
}
