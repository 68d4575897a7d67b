/**
 * What a compaction must not take from the model (invariant 14): a STATEFUL or
 * CRITICAL call of a turn that did not end `replied`, which the model was told
 * of only inside the range being replaced — its result in the kept steps of a
 * cancelled or interrupted turn, or the loop's notice taken into a turn there —
 * while no later turn has replied since (the model has not acted on it yet).
 * A compactor's summary need not mention such calls; the loop restates them
 * after it, in the notice's words, so the request the model reads next still
 * says the refund may already have gone through.
 */
import type { EventLog } from '../log/event-log.ts';
import type { LogEvent } from '../log/envelope.ts';
import { keepsCompletedSteps, type Outcome } from '../outcome.ts';
import { sideEffectLine } from './records.ts';

/** The lines restating the range's unresolved side effects, to follow the summary; undefined when there are none. */
export function restatedSideEffects(log: EventLog, from: number, to: number): string | undefined {
  const events = log.events;
  const replied = new Set<number>(); // turns that closed replied
  const ended = new Set<number>(); // turns that closed otherwise
  const kept = new Set<number>(); // turns whose completed steps the model reads (cancelled, interrupted)
  let lastReplied = -1;
  for (const e of events) {
    if (e.type !== 'turn.closed') continue;
    const { turn, outcome } = (e as Extract<LogEvent, { type: 'turn.closed' }>).payload;
    if (outcome.kind === 'replied') {
      replied.add(turn);
      lastReplied = Math.max(lastReplied, turn);
    } else {
      ended.add(turn);
      if (keepsCompletedSteps(outcome as Outcome)) kept.add(turn);
    }
  }
  const effects: { callId: string; name: string }[] = [];
  const told: string[] = []; // texts the range showed the model: its user messages
  const results = new Set<string>(); // calls whose result the range showed the model
  for (let seq = from; seq <= to && seq < events.length; seq++) {
    const e = events[seq]! as LogEvent;
    if (e.type === 'user.message') told.push(e.payload.text);
    else if (e.type === 'tool.result' && kept.has(e.payload.turn))
      results.add(e.payload.callId); // a failed turn's steps are not read
    else if (e.type === 'tool.started') {
      const { turn, callId, name, sideEffect, attempt } = e.payload;
      if ((sideEffect !== 'STATEFUL' && sideEffect !== 'CRITICAL') || attempt !== 1) continue;
      if (!ended.has(turn) || lastReplied > turn) continue; // replied, or a later turn replied since: acted on
      if (log.positions.call(callId)?.started !== true) continue; // a start the store refused never ran
      effects.push({ callId, name });
    }
  }
  const lines: string[] = [];
  for (const effect of effects) {
    // Told elsewhere (a notice still waiting), or not at all.
    if (!results.has(effect.callId) && !told.some((t) => t.includes(`${effect.name} (call ${effect.callId})`))) continue;
    lines.push(sideEffectLine(effect, log)); // in the notice's words (records.ts)
  }
  if (lines.length === 0) return undefined;
  return `[Turns summarized here ended without a reply after these actions were already carried out or may have been:\n${lines.join('\n')}\nDo not repeat them without checking.]`;
}
