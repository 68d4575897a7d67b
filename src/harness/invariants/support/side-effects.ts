/**
 * Invariant 14's reading of a log: the side effects a model must be told about,
 * and whether a list of messages tells it.
 *
 * A side effect is a STATEFUL or CRITICAL call that started — and was not
 * stopped by a failed write-ahead before it ran — in a turn that did not end
 * `replied`. The model is told of it when what it reads holds the call's
 * result (a cancelled or interrupted turn keeps its completed steps) or a line
 * naming the tool and the call, `name (call id)`, as the loop's notice does.
 */
import type { LogEvent, Message, Outcome } from '../../../kernel/index.ts';

export interface SideEffect {
  readonly turn: number;
  readonly callId: string;
  readonly name: string;
  /** Seq of its first `tool.started`. */
  readonly seq: number;
}

/** STATEFUL and CRITICAL calls started in turns that closed with another outcome than `replied`, in log order. */
export function sideEffectsOfUnrepliedTurns(known: readonly LogEvent[]): { effect: SideEffect; outcome: Outcome }[] {
  const outcomes = new Map<number, Outcome>();
  // A start whose write-ahead failed never ran: its result says failed after 0 attempts (NOT_RECORDED).
  const neverRan = new Set<string>();
  for (const e of known) {
    if (e.type === 'turn.closed') outcomes.set(e.payload.turn, e.payload.outcome as Outcome);
    if (e.type === 'tool.result' && e.payload.status === 'failed' && e.payload.attempts === 0) neverRan.add(e.payload.callId);
  }
  const out: { effect: SideEffect; outcome: Outcome }[] = [];
  const seen = new Set<string>();
  for (const e of known) {
    if (e.type !== 'tool.started' || (e.payload.sideEffect !== 'STATEFUL' && e.payload.sideEffect !== 'CRITICAL') || seen.has(e.payload.callId)) continue;
    seen.add(e.payload.callId);
    if (neverRan.has(e.payload.callId)) continue;
    const outcome = outcomes.get(e.payload.turn);
    if (outcome === undefined || outcome.kind === 'replied') continue;
    out.push({ effect: { turn: e.payload.turn, callId: e.payload.callId, name: e.payload.name, seq: e.seq }, outcome });
  }
  return out;
}

/** The line a notice names a side effect with. */
export function noticeLine(effect: SideEffect): string {
  return `${effect.name} (call ${effect.callId})`;
}

/** Do these messages tell the model of `effect`: its result, or a text naming it? */
export function tells(messages: readonly Message[], effect: SideEffect): boolean {
  const line = noticeLine(effect);
  for (const m of messages) {
    for (const b of m.content) {
      if (b.type === 'tool_result' && b.callId === effect.callId) return true;
      if (b.type === 'text' && b.text.includes(line)) return true;
    }
  }
  return false;
}

/** Was the call's record replaced by a compaction summary (the loop then restates it after the summary while it is unresolved)? */
export function compactedAway(known: readonly LogEvent[], effect: SideEffect): boolean {
  return known.some((e) => e.type === 'projection.replaced' && e.payload.from <= effect.seq && effect.seq <= e.payload.to);
}
