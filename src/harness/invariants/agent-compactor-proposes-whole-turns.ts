/**
 * The agent's own compactor proposes whole closed turns: a range from a
 * `turn.opened` to a `turn.closed` of the log it was given, inside it, not
 * cutting through a compaction still in force. The loop refuses any other range,
 * as it must — nothing is replaced, the history kept — and the overflow the
 * compaction was meant to fix ends the turn `conversation_full`: a legal outcome
 * no other invariant objects to. So a team's compactor that cut every turn in
 * half (its range one event short) passed `loopgate fuzz`, and the gate only
 * where a scenario happened to expect the reply (outside probe 53). Likewise one
 * that throws at every call of a case (its summariser not there in CI) never
 * compacted anything. One with nothing to compact proposes nothing (`null`), and
 * one that throws now and then — or because the turn was cancelled while it ran
 * — is the path the loop handles: not failures.
 *
 * Read from each call as the world recorded it (world/recorded-compactor.ts) and
 * checked against the log here, not by the kernel's check. A compactor the
 * scenario scripts (`compaction:`, a misbehaving `range:` among them) is the
 * world's: not judged (`compaction-keeps-turns-whole` checks what the loop did).
 */
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';

export const agentCompactorProposesWholeTurns = defineInvariant({
  id: 'agent-compactor-proposes-whole-turns',
  title: "the agent's own compactor proposes whole closed turns (or nothing), and does not throw at every call of a case",
  appliesTo: loopgateOnly('the compactor a peer loop uses is its own'),
  check: (run) => compactorProblem(run),
});

function compactorProblem(run: ScenarioRun): string | undefined {
  const calls = (run.compactions ?? []).filter((c) => c.own);
  if (calls.length === 0) return undefined;
  const events = run.log.events;
  for (const call of calls) {
    const proposed = call.proposed;
    if (proposed === null || proposed === 'threw') continue;
    const why = notWholeTurns(events, call.logLength, proposed.from, proposed.to);
    if (why)
      return `the agent's compactor proposed [${proposed.from}, ${proposed.to}], which ${why}: not whole closed turns, the loop did not apply it, and the overflow it was asked to fix was not fixed`;
  }
  const threw = calls.filter((c) => c.proposed === 'threw' && !c.threw?.aborted);
  if (threw.length === calls.length) {
    const each = calls.length === 1 ? 'its one call' : `each of its ${calls.length} calls`;
    return `the agent's compactor threw at ${each} (${clip(threw[0]!.threw?.message ?? '')}): nothing was ever compacted`;
  }
  return undefined;
}

/** Why [from, to] is not whole closed turns of the first `length` events, if it is not. */
function notWholeTurns(events: readonly { readonly type: string; readonly payload: unknown }[], length: number, from: number, to: number): string | undefined {
  if (!Number.isInteger(from) || !Number.isInteger(to)) return 'is not two event positions';
  if (from > to) return 'is empty (it starts after it ends)';
  if (from < 0 || to >= length) return `lies outside the log it was given (${length} events)`;
  if (events[from]!.type !== 'turn.opened') return `starts at event ${from} (${events[from]!.type}), not at a turn.opened`;
  if (events[to]!.type !== 'turn.closed') return `ends at event ${to} (${events[to]!.type}), not at a turn.closed`;
  // Compactions in force when it was asked: each replacement before then, unless restored before then.
  const restored = new Set<number>();
  for (let i = 0; i < length; i++) {
    const e = events[i]!;
    if (e.type === 'projection.restored') restored.add((e.payload as { replacement: number }).replacement);
  }
  for (let i = 0; i < length; i++) {
    const e = events[i]!;
    if (e.type !== 'projection.replaced' || restored.has(i)) continue;
    const r = e.payload as { from: number; to: number };
    const disjoint = r.to < from || r.from > to;
    const holds = r.from >= from && r.to <= to;
    if (!disjoint && !holds) return `cuts through the compaction of [${r.from}, ${r.to}] still in force`;
  }
  return undefined;
}

function clip(text: string): string {
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}
