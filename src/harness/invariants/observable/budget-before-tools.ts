/**
 * Invariant 11 from outside a loop: no tool runs in a step whose result the
 * model can never see — in a turn that ended on its step limit, every call that
 * ran must have its result in a later request of that turn (under its id, or its
 * id redacted — a loop keeping the case's secrets out redacts an id holding one —
 * where that is no other call's redacted id).
 */
import { createRedactor } from '../../../kernel/index.ts';
import type { PeerRun } from '../../loop-port/peer-run.ts';
import { carriesResult, requestsOfTurn } from '../support/peer-view.ts';

export function budgetBeforeToolsObservably(run: PeerRun): string | undefined {
  const redact = createRedactor({ secrets: run.secrets });
  const ids = [...new Set(run.toolRuns.map((t) => t.callId))];
  /** The call's id as a redacting loop writes it, where that tells it from every other call's; else its own. */
  const redactedId = (id: string) => {
    const form = redact(id);
    return ids.some((other) => other !== id && redact(other) === form) ? id : form;
  };
  for (const r of run.reports) {
    if (r.outcome.kind !== 'failed' || r.outcome.reason !== 'max_steps') continue;
    const requests = requestsOfTurn(run, r.turn);
    for (const ran of run.toolRuns.filter((t) => t.turn === r.turn)) {
      if (requests.some((q) => carriesResult(q.messages, ran.callId) || carriesResult(q.messages, redactedId(ran.callId)))) continue;
      return `turn ${r.turn}: ${ran.name} (${ran.sideEffect}, call ${ran.callId}) ran in the last step the limit (${run.maxSteps}) allowed: the model could never see its result`;
    }
  }
  return undefined;
}
