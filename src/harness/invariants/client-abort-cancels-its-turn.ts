/**
 * Through the production host, a client that goes away (its request aborted)
 * after the running turn took its message cancels that turn as the user
 * (`HandleOptions.signal`, host.ts: "Once a running turn has taken the message,
 * it cancels that turn as the user"): the turn's work was asked for by nobody
 * who still waits. Judged from the log: the turn that had taken the message
 * when its client went away (the harness notes it just before the abort, in the
 * log of the process the message was sent to) holds a `cancel.requested` — this
 * one, by the user, or an earlier cancel's (the first source wins; a later one of
 * another source only where the scenario itself cancels so).
 *
 * Not judged when the final log no longer holds that turn as it was (records a
 * crash or a refused write took), when crash recovery closed it or nothing could
 * (a store read back damaged), or when it ended failed{persistence} (the write
 * holding the cancel may be the one refused).
 */
import type { LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { label, viewOf } from './support/log-view.ts';

export const clientAbortCancelsItsTurn = defineInvariant({
  id: 'client-abort-cancels-its-turn',
  title: 'a client that goes away after the running turn took its message cancels that turn',
  appliesTo: loopgateOnly('a client going away is the production host’s; a peer answers no requests'),
  check: (run) => abortsCancel(run),
});

/** Whether the scenario itself cancels as `by` (an inbox `cancel: by`), or shuts a host down (`shutdown`). */
function sentByTheScenario(run: ScenarioRun, by: string): boolean {
  const entries = [...run.scenario.inbox, ...(run.scenario.bystander?.inbox ?? [])];
  return entries.some((e) => e.cancel === by || (by === 'shutdown' && e.shutdown !== undefined));
}

function abortsCancel(run: ScenarioRun): string | undefined {
  if (!run.posts) return undefined;
  const view = viewOf(run);
  for (const [i, post] of run.posts.entries()) {
    const taken = post.takenWhenAborted;
    if (!taken) continue;
    const turn = view.turns.find((t) => t.turn === taken.turn);
    if (!turn || turn.recovered || turn.outcome === undefined) continue;
    if (turn.outcome.kind === 'failed' && turn.outcome.reason === 'persistence') continue;
    const message = turn.events.find((e): e is Extract<LogEvent, { type: 'user.message' }> => e.type === 'user.message' && e.payload.id === taken.id);
    if (!message || message.seq >= taken.logLength || (turn.closedSeq !== undefined && turn.closedSeq < taken.logLength)) continue;
    const first = turn.events.find((e): e is Extract<LogEvent, { type: 'cancel.requested' }> => e.type === 'cancel.requested');
    if (first) {
      // The first source wins: one cancelled the turn before the client went away, or the client's cancel, as the user
      // (outside probe 62, P22: a disconnect cancelling as the parent passed, a cancel there all the same). Only a
      // cancel the scenario sends itself as that source, or a shutdown, may come first otherwise.
      const theirs = first.seq < taken.logLength || first.payload.by === 'user' || sentByTheScenario(run, first.payload.by);
      if (theirs) continue;
      return `the client of message ${i + 1} (${post.intent} "${post.text.slice(0, 40)}") went away while turn ${taken.turn} had taken it, and the turn was cancelled by ${first.payload.by}, not as the user: nobody else asked for it`;
    }
    return `the client of message ${i + 1} (${post.intent} "${post.text.slice(0, 40)}") went away while turn ${taken.turn} had taken it, but nothing cancelled that turn: it ended ${label(turn.outcome)}`;
  }
  return undefined;
}
