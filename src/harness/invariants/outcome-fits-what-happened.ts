/**
 * From outside another loop: the outcome it reports fits what the harness saw
 * happen in the turn. A peer's outcomes are judged against a scenario's
 * expectations, so a case without one (every fuzz case) took any report: a
 * team's loop that reported a cancelled turn `failed{internal}` — dropping its
 * message, which invariant 9 then never asked for — and one that reported a turn
 * its step limit stopped as `replied`, with no reply, passed `loopgate fuzz`
 * (outside probe 54, M1 and M2).
 *
 * - A turn the harness cancelled while a model call or a tool body of it was
 *   under way ends `cancelled{by}` (the first cancel's source): it was stopped
 *   mid-work, and nothing it could have finished decides it.
 * - A turn reported `replied` got a reply: its last answer from the model in
 *   the turn is a `reply`, or the turn gives a reply of its own (a loop that
 *   ends on a tool's output by design; `replies-come-from-the-model` judges
 *   where that came from).
 *
 * loopgate's own loop is held to its whole transition table, from its log
 * (`outcome-follows-table`); here, from its log too, to the second rule, and,
 * from its trace, to the first where the log has nothing to read: a turn whose
 * checkpoint hook a cancel cut short does not end replied (outside probe 55, MED-2: a
 * loop that read only the hook's "nothing to add" closed it replied, and no
 * invariant said so).
 */
import { outcomeLabel } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, type PeerRun } from './invariant.ts';
import { viewOf } from './support/log-view.ts';

export const outcomeFitsWhatHappened = defineInvariant({
  id: 'outcome-fits-what-happened',
  title: 'a turn cancelled mid-work ends cancelled, and one that replied got a reply',
  // loopgate's own loop, from its log: a replied turn's last model result is a reply (its cancels, and the rest of
  // its table, outcome-follows-table judges).
  check: (run) => repliedAfterAReply(run) ?? checkpointCutButNotCancelled(run),
  checkObservable: (run) => cancelledMidWork(run) ?? repliedWithAReply(run),
});

function repliedAfterAReply(run: ScenarioRun): string | undefined {
  const last = new Map<number, string>();
  for (const r of viewOf(run).requests) {
    const result = r.result?.payload.result as { type?: unknown } | undefined;
    if (typeof result?.type === 'string') last.set(r.event.payload.turn, result.type);
  }
  for (const result of run.results) {
    if (result.outcome.kind !== 'replied') continue;
    const type = last.get(result.turn);
    if (type !== undefined && type !== 'reply') return `turn ${result.turn} ended replied, but the last result of the model in it was ${type}, not a reply`;
  }
  return undefined;
}

function checkpointCutButNotCancelled(run: ScenarioRun): string | undefined {
  for (const trace of run.traces) {
    const turn = trace.spans.find((span) => span.kind === 'turn' && span.parentId === undefined)?.attributes.turn;
    const cut = trace.spans.find((span) => span.kind === 'checkpoint' && span.status === 'cancelled');
    const result = run.results.find((r) => r.turn === turn);
    // Not replied: a cancel ends it cancelled, unless the store refused its close (failed{persistence}: review of
    // stop 59, HIGH-1); what else may follow a cancel, outcome-follows-table judges.
    if (cut === undefined || result === undefined || result.outcome.kind !== 'replied') continue;
    return `turn ${String(turn)} ended replied, but a cancel cut its checkpoint hook ${JSON.stringify(cut.name)} short before the turn closed: a turn stopped before it closed does not reply (it ends cancelled)`;
  }
  return undefined;
}

function cancelledMidWork(run: PeerRun): string | undefined {
  for (const report of run.reports) {
    const cancel = (run.cancels ?? []).find((c) => c.turn === report.turn);
    if (!cancel || cancel.ms === undefined) continue;
    const at = cancel.ms;
    const want = `cancelled{${cancel.by}}`;
    if (outcomeLabel(report.outcome) === want) continue;
    const body = run.toolRuns.find(
      (r) =>
        r.turn === report.turn &&
        r.startedMs !== undefined &&
        r.startedMs <= at &&
        (r.endedMs === undefined || r.endedMs > at || (r.endedMs === at && r.abortedMs === at)),
    );
    const call = run.responses.findIndex(
      (c, i) => run.requestTurns[i] === report.turn && c.sentMs !== undefined && c.sentMs <= at && (c.settledMs === undefined || c.settledMs > at),
    );
    // A body the cancel's abort ended that moment was under way; one that ended then on its own may have been the
    // turn's last work (a loop that ends on a tool's output: review of stop 58, L1), as may a model call that
    // settled then: neither is counted.
    const working = body ? `the body of ${body.name} (call ${body.callId}) ran` : call >= 0 ? `request ${call + 1} to the model was under way` : undefined;
    if (!working) continue;
    return `turn ${report.turn} ended ${outcomeLabel(report.outcome)}, but the case cancelled it (${cancel.by}, at ${at} ms) while ${working}: a turn stopped mid-work ends ${want}`;
  }
  return undefined;
}

function repliedWithAReply(run: PeerRun): string | undefined {
  for (const report of run.reports) {
    if (report.outcome.kind !== 'replied') continue;
    let last = -1;
    for (let i = 0; i < run.responses.length; i++) if (run.requestTurns[i] === report.turn && run.responses[i]!.result) last = i;
    if (last < 0) continue; // the harness saw no answer of the model in it (a loop that answers from its own cache)
    const result = run.responses[last]!.result!;
    // A loop may end a turn on a tool's output by design (OpenAI Agents' stopAtToolNames): then that is its reply,
    // whose source replies-come-from-the-model judges. A turn replied with nothing, after no reply, got none.
    if (result.type !== 'reply' && (report.reply ?? '').trim() === '')
      return `turn ${report.turn} ended replied, but the last answer of the model in it (request ${last + 1}) was ${result.type}, not a reply, and the turn gave none`;
  }
  return undefined;
}
