/**
 * Invariant 14 from outside a loop: a STATEFUL or CRITICAL call that ran in a
 * turn that did not end `replied` is told to the model at its next turn — the
 * first request of every later turn shows its result (or a line naming it),
 * until a turn so told replies; with no later turn, what the next turn would
 * start from does: the persisted history, or a notice the app keeps waiting. A
 * loop that keeps the case's secrets out (invariant 15) names a call whose id
 * holds one redacted: both sides are compared redacted, with the run's redactor.
 */
import { createRedactor, redactDeep, type Message } from '../../../kernel/index.ts';
import { finalHistory, type PeerRun } from '../../loop-port/peer-run.ts';
import { tells } from '../support/side-effects.ts';
import { labelOf, requestsOfTurn } from '../support/peer-view.ts';

export function sideEffectsToldObservably(run: PeerRun): string | undefined {
  if (run.thrown !== undefined) return undefined;
  const redactor = createRedactor({ secrets: run.secrets });
  const redacted = (messages: readonly Message[]) => redactDeep(messages, redactor) as readonly Message[];
  for (const ran of run.toolRuns) {
    if (ran.sideEffect !== 'STATEFUL' && ran.sideEffect !== 'CRITICAL') continue;
    const report = run.reports.find((r) => r.turn === ran.turn);
    if (!report || report.outcome.kind === 'replied') continue;
    const effect = { turn: ran.turn, callId: redactor(ran.callId), name: ran.name, seq: -1 };
    const what = `${ran.name} (call ${ran.callId}) ran in turn ${ran.turn}, which ended ${labelOf(report.outcome)}`;
    let discharged = false;
    for (const later of run.reports.filter((r) => r.turn > ran.turn)) {
      const first = requestsOfTurn(run, later.turn)[0];
      if (!first) continue;
      if (!tells(redacted(first.messages), effect)) return `${what}, but the first request of turn ${later.turn} did not tell the model`;
      if (later.outcome.kind === 'replied') {
        discharged = true;
        break;
      }
    }
    if (!discharged && !tells(redacted([...finalHistory(run), ...run.waiting]), effect))
      return `${what}, and the persisted history the next turn starts from does not show it`;
  }
  return undefined;
}
