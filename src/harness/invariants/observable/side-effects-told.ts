/**
 * Invariant 14 from outside a loop: a STATEFUL or CRITICAL call that ran in a
 * turn that did not end `replied` is told to the model at its next turn — the
 * first request of every later turn shows its result (or a line naming it),
 * until a turn so told replies; with no later turn, what the next turn would
 * start from does: the persisted history, or a notice the app keeps waiting. A
 * loop that keeps the case's secrets out (invariant 15) names a call whose id
 * holds one redacted: where the call is not named as it was given, it is looked
 * for redacted on both sides, with the run's redactor — only where its redacted
 * id is no other call's (two ids that differ only in a secret read alike).
 */
import { createRedactor, redactDeep, type Message, type Redactor } from '../../../kernel/index.ts';
import { finalHistory, type PeerRun } from '../../loop-port/peer-run.ts';
import { noticeLine, tells, type SideEffect } from '../support/side-effects.ts';
import { labelOf, requestsOfTurn } from '../support/peer-view.ts';

export function sideEffectsToldObservably(run: PeerRun): string | undefined {
  if (run.thrown !== undefined) return undefined;
  const redactor = createRedactor({ secrets: run.secrets });
  const told = tellsAsGivenOrRedacted(run, redactor);
  for (const ran of run.toolRuns) {
    if (ran.sideEffect !== 'STATEFUL' && ran.sideEffect !== 'CRITICAL') continue;
    const report = run.reports.find((r) => r.turn === ran.turn);
    if (!report || report.outcome.kind === 'replied') continue;
    const effect = { turn: ran.turn, callId: ran.callId, name: ran.name, seq: -1 };
    const what = `${ran.name} (call ${ran.callId}) ran in turn ${ran.turn}, which ended ${labelOf(report.outcome)}`;
    // What tells it (outside probe 54, M3 and M4: a notice "update_ticket (u1)" was not it, and where a notice may wait
    // for the next turn was never said).
    const wanted = `its result, or a text holding "${noticeLine(effect)}"`;
    let discharged = false;
    for (const later of run.reports.filter((r) => r.turn > ran.turn)) {
      const first = requestsOfTurn(run, later.turn)[0];
      if (!first) continue;
      if (!told(first.messages, effect)) return `${what}, but the first request of turn ${later.turn} did not tell the model (${wanted})`;
      if (later.outcome.kind === 'replied') {
        discharged = true;
        break;
      }
    }
    if (!discharged && !told([...finalHistory(run), ...run.waiting], effect))
      return `${what}, and neither the persisted history the next turn starts from nor a notice the loop keeps waiting (waiting()) shows it (${wanted})`;
  }
  return undefined;
}

/** Do the messages tell the model of the effect: as it was given, else redacted where its redacted id is no other call's. */
function tellsAsGivenOrRedacted(run: PeerRun, redactor: Redactor): (messages: readonly Message[], effect: SideEffect) => boolean {
  const ids = [...new Set(run.toolRuns.map((r) => r.callId))];
  return (messages, effect) => {
    if (tells(messages, effect)) return true;
    const callId = redactor(effect.callId);
    if (callId === effect.callId || ids.some((id) => id !== effect.callId && redactor(id) === callId)) return false;
    return tells(redactDeep(messages, redactor) as readonly Message[], { ...effect, callId });
  };
}
