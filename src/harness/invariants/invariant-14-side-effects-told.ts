/**
 * Invariant 14: a side effect that ran in a turn whose steps the model will not
 * see (any outcome but `replied`) is told to the model at its next turn.
 *
 * For every STATEFUL or CRITICAL call started in a turn that did not end
 * `replied`, the first request of every later turn must tell the model of it —
 * its result in the kept steps of a cancelled or interrupted turn, or the loop's
 * notice naming it — and so must the first request of that turn the model
 * answered (not one the provider refused unread: a context overflow at the
 * request, a transport error), until a turn that was told ends `replied` (its
 * history keeps what it was told). A compaction in between does not excuse it:
 * when the overflowed request is compacted, the request the model reads instead
 * must still tell (the loop restates such calls in the summary). If the run ends
 * before that, what the next turn would read must still tell it: the history, or
 * a notice waiting in the inbox. A notice lost on the way — never written, or
 * taken into a turn that failed and not given back — breaks it. Not checked for
 * failed turns when the notice is switched off (`sideEffectNotice: false`). And
 * the notice tells the truth of each call: done, may have taken effect, or
 * failed, as its result says.
 */
import { isLoopWritten, keepsCompletedSteps, project } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant } from './invariant.ts';
import { label, viewOf, type RequestView } from './support/log-view.ts';
import { compactedAway, noticeLine, sideEffectsOfUnrepliedTurns, tells } from './support/side-effects.ts';
import { sideEffectsToldObservably } from './observable/side-effects-told.ts';

export const sideEffectsTold = defineInvariant({
  id: 'invariant-14-side-effects-told',
  title: 'a side effect of a turn that did not reply is told to the model at its next turn',
  invariant: 14,
  checkObservable: sideEffectsToldObservably,
  check: (run) => sideEffectsToldToTheModel(run) ?? noticesTellTheTruth(run),
});

/** How the loop's notice words each call's result (records.ts): what the model reads. */
const NOTICE_WORDS: Record<string, string> = { ok: 'done', unknown: 'may have taken effect', failed: 'failed' };
const NOTICE_LINE = /^- (.+) \(call (.+)\): (done|may have taken effect|failed)$/gm;

/**
 * And what the notice says of each call is its result: `done` only for a call that
 * ended ok, `may have taken effect` for one whose outcome nobody knows (or that
 * has no result), `failed` for one that failed. A refund told "done" that may not
 * have happened, or "failed" that may have, invites the model to act on a lie.
 */
function noticesTellTheTruth(run: ScenarioRun): string | undefined {
  const known = viewOf(run).known;
  const status = new Map<string, string>();
  for (const e of known) {
    if (e.type === 'tool.result') status.set(`${e.payload.name}/${e.payload.callId}`, e.payload.status);
    if (e.type !== 'inbox.received' || !isLoopWritten(e.payload.source)) continue;
    for (const [, name, callId, said] of e.payload.text.matchAll(NOTICE_LINE)) {
      const result = status.get(`${name}/${callId}`) ?? 'unknown';
      const truth = NOTICE_WORDS[result] ?? 'may have taken effect';
      if (said !== truth)
        return `the loop's notice (seq ${e.seq}) tells the model ${name} (call ${callId}) "${said}", but its result is ${result}: it should say "${truth}"`;
    }
  }
  return undefined;
}

function sideEffectsToldToTheModel(run: ScenarioRun): string | undefined {
  if (run.thrown !== undefined) return undefined; // invariant 12 reports it; what follows is noise
  const view = viewOf(run);
  const pending = run.log.positions.pending();
  for (const { effect, outcome } of sideEffectsOfUnrepliedTurns(view.known)) {
    if (!keepsCompletedSteps(outcome) && !run.config.sideEffectNotice) continue;
    const what = `${noticeLine(effect)} started in turn ${effect.turn}, which ended ${label(outcome)}`;
    let discharged = false;
    for (const turn of view.turns) {
      if (turn.turn <= effect.turn) continue;
      const requests = view.requestsOf(turn.turn);
      const first = requests[0];
      if (!first) continue;
      const sent = run.requests[first.index];
      if (!sent || !tells(sent.messages, effect)) return `${what}, but the first request of turn ${turn.turn} did not tell the model`;
      const read = requests.find(answered);
      if (read && read !== first && !tells(run.requests[read.index]?.messages ?? [], effect)) {
        const how = compactedAway(view.known, effect) ? ' (a compaction replaced the call, and its summary does not name it)' : '';
        return `${what}, but request ${read.index + 1}, the first of turn ${turn.turn} the model answered, did not tell the model${how}`;
      }
      if (turn.outcome?.kind === 'replied') {
        discharged = true;
        break;
      }
    }
    if (discharged) continue;
    const waiting = pending.some((m) => m.text.includes(noticeLine(effect)));
    if (!waiting && !tells(run.finalProjection ?? project(run.log.events), effect))
      return `${what}, and nothing the next turn would read tells the model: no notice waits in the inbox and the history does not show it`;
  }
  return undefined;
}

/** Did the model read this request: it has a result, and not one the provider gave without reading it (an overflow at the request, a transport error)? */
function answered(r: RequestView): boolean {
  const result = r.result?.payload.result;
  if (!result) return false;
  if (result.type === 'transport_error') return false;
  return !(result.type === 'context_window_exceeded' && result.at === 'request');
}
