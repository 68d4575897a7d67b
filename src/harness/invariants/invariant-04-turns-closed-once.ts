/**
 * Invariant 4: every opened turn is closed exactly once, with an outcome from
 * the closed alphabet.
 *
 * In the log, turns open and close in pairs, in order, and each turn returned
 * one result; every outcome returned and logged is in the alphabet, with no field
 * the alphabet does not have. Seen from the trace and the results: one trace per turn, its turn
 * span `ok` and carrying the outcome (a turn crash recovery closed, traced by the production host
 * marked `recovered`, carries its close's), and the outcome the loop returned is the one
 * it logged — except `failed{persistence}` returned for a turn whose close the
 * store refused to write (the log keeps what the turn did). What a close records
 * of its turn is the turn's own: the usage its model results reported, a
 * tool-call count no smaller than the calls that started and no larger than the
 * calls the model made — by a loop or by crash recovery — and the result the
 * loop returned says the same. A result carries a reply only for `replied`
 * (TurnResult.reply: "the final reply text, for replied"): a turn that replied,
 * was extended by a checkpoint and then failed or was cancelled hands its
 * caller no reply — the words it said before are not the turn's answer.
 */
import { isOutcome, outcomeLabel, type LogEvent, type Outcome } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, firstViolation } from './invariant.ts';
import { label, viewOf } from './support/log-view.ts';
import { turnsClosedObservably } from './observable/turns-closed.ts';

export const turnsClosedOnce = defineInvariant({
  id: 'invariant-04-turns-closed-once',
  title: 'every opened turn is closed exactly once, with an outcome from the alphabet, returned, logged and traced alike',
  invariant: 4,
  checkObservable: turnsClosedObservably,
  check: (run) =>
    firstViolation(
      () => closedInPairs(run),
      () => outcomesInAlphabet(run),
      () => tracesCarryOutcomes(run),
      () => closesCountTheirTurn(run),
      () => repliesOnlyWhenReplied(run),
    ),
});

function closedInPairs(run: ScenarioRun): string | undefined {
  const opened: number[] = [];
  const closed: number[] = [];
  for (const e of viewOf(run).known) {
    if (e.type === 'turn.opened') opened.push(e.payload.turn);
    if (e.type === 'turn.closed') closed.push(e.payload.turn);
  }
  // A store no process could read back after a crash (run.unreadable): the turn the crash left open stays open — no
  // recovery may run over a log with a gap. Only the last turn, and only then.
  const leftOpen = run.unreadable !== undefined && opened.length === closed.length + 1 ? opened.slice(0, -1) : opened;
  if (JSON.stringify(leftOpen) !== JSON.stringify(closed)) return `turns opened ${JSON.stringify(opened)} but closed ${JSON.stringify(closed)}`;
  // A turn a crash left open is closed by recovery, not by a loop: it returns no result, and it is always `interrupted`.
  const turns = viewOf(run).turns;
  const recovered = turns.filter((t) => t.recovered);
  const wrong = recovered.find((t) => t.outcome?.kind !== 'interrupted');
  if (wrong) return `turn ${wrong.turn} was closed by recovery as ${label(wrong.outcome)}: recovery closes a turn as interrupted`;
  const interrupted = turns.find((t) => !t.recovered && t.outcome?.kind === 'interrupted');
  if (interrupted) return `turn ${interrupted.turn} was closed interrupted by a loop: only crash recovery closes a turn so`;
  const byLoop = closed.length - recovered.length;
  if (run.results.length !== byLoop)
    return `${byLoop} turn(s) in the log closed by a loop${recovered.length ? ` (and ${recovered.length} by recovery)` : ''}, ${run.results.length} results returned`;
  return undefined;
}

function tracesCarryOutcomes(run: ScenarioRun): string | undefined {
  const turns = viewOf(run).turns;
  // A turn crash recovery closed returns nothing; the production host exports its trace, marked recovered
  // (recovered-turns-traced judges that one is there).
  const recoveredRoot = (t: (typeof run.traces)[number]) =>
    t.spans.find((s) => s.kind === 'turn' && s.parentId === undefined && s.attributes['recovered'] === true);
  for (const trace of run.traces) {
    const root = recoveredRoot(trace);
    if (!root) continue;
    const turn = turns.find((t) => t.turn === root.attributes['turn']);
    if (!turn?.recovered) return `trace ${trace.traceId} says recovery closed turn ${String(root.attributes['turn'])}, but the log has no such close`;
    if (root.status !== 'ok') return `the turn span of recovered turn ${turn.turn} ended ${String(root.status)}: turns never error`;
    if (root.attributes['outcome'] !== label(turn.outcome))
      return `the turn span of recovered turn ${turn.turn} carries ${String(root.attributes['outcome'])}, not ${label(turn.outcome)}`;
  }
  const traces = run.traces.filter((t) => !recoveredRoot(t));
  if (traces.length !== run.results.length) return `${run.results.length} turn(s) returned but ${traces.length} trace(s) ended`;
  for (let i = 0; i < run.results.length; i++) {
    const result = run.results[i]!;
    const logged = turns.find((t) => t.turn === result.turn);
    const returned = outcomeLabel(result.outcome);
    if (!logged) return `turn ${result.turn} was returned but never logged`;
    // One divergence is by design: the turn closed in the log, then the write of that close failed; the log keeps what the
    // turn did and the caller (and the trace) learn it is not durable.
    const closeNotStored = returned === 'failed{persistence}' && run.storeWrites.failed.length > 0;
    if (label(logged.outcome) !== returned && !closeNotStored) return `turn ${result.turn} returned ${returned} but the log says ${label(logged.outcome)}`;
    const root = traces[i]!.spans.find((s) => s.kind === 'turn');
    if (!root) return `the trace of turn ${result.turn} has no turn span`;
    if (root.status !== 'ok') return `the turn span of turn ${result.turn} ended ${String(root.status)}: turns never error`;
    if (root.attributes['outcome'] !== returned) return `the turn span of turn ${result.turn} carries ${String(root.attributes['outcome'])}, not ${returned}`;
  }
  return undefined;
}

/** Each outcome's fields: a new outcome kind is a compile error here until it is listed. */
const FIELDS: { readonly [K in Outcome['kind']]: readonly string[] } = {
  replied: ['kind'],
  cancelled: ['kind', 'by'],
  rejected: ['kind', 'reason'],
  nothing_to_do: ['kind'],
  conversation_full: ['kind'],
  interrupted: ['kind', 'cause'],
  failed: ['kind', 'reason', 'detail'],
};

function problem(outcome: unknown): string | undefined {
  if (!isOutcome(outcome)) return `${JSON.stringify(outcome)} is not in the alphabet`;
  const extra = Object.keys(outcome).filter((k) => !FIELDS[outcome.kind]!.includes(k));
  return extra.length > 0 ? `${JSON.stringify(outcome)} has field(s) the alphabet does not: ${extra.join(', ')}` : undefined;
}

function outcomesInAlphabet(run: ScenarioRun): string | undefined {
  for (const r of run.results) {
    const p = problem(r.outcome);
    if (p) return `turn ${r.turn} returned ${p}`;
  }
  for (const e of viewOf(run).known) {
    if (e.type !== 'turn.closed') continue;
    const p = problem((e as Extract<LogEvent, { type: 'turn.closed' }>).payload.outcome);
    if (p) return `turn ${e.payload.turn} logged ${p}`;
  }
  return undefined;
}

/** The usage only some providers report (cache reads and writes, reasoning): a close sums each one its results reported. */
const DETAIL = ['cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens'] as const;

/** A count as the close sums it: past 2^53 − 1 (Infinity included) it is 2^53 − 1, never 0 (a budget fails closed); NaN or negative is none. */
const countable = (n: unknown) => (typeof n !== 'number' ? 0 : n > Number.MAX_SAFE_INTEGER ? Number.MAX_SAFE_INTEGER : Number.isFinite(n) && n > 0 ? n : 0);
/** A sum of counts, held at 2^53 − 1 as the close holds it. */
const add = (sum: number, n: unknown) => Math.min(Number.MAX_SAFE_INTEGER, sum + countable(n));

/** Each `turn.closed` counts its own turn's events, and the returned result repeats what was logged. */
function repliesOnlyWhenReplied(run: ScenarioRun): string | undefined {
  for (const r of run.results) {
    if (r.outcome.kind !== 'replied' && r.reply !== undefined)
      return `turn ${r.turn} ended ${outcomeLabel(r.outcome)}, but its result carries a reply (${JSON.stringify(r.reply.slice(0, 60))}): a reply is the answer of a replied turn only`;
  }
  return undefined;
}

function closesCountTheirTurn(run: ScenarioRun): string | undefined {
  for (const t of viewOf(run).turns) {
    const problem = closeCountsItsTurn(t.turn, t.events);
    if (problem) return problem;
  }
  for (const r of run.results) {
    const close = viewOf(run)
      .turns.find((t) => t.turn === r.turn)
      ?.events.at(-1);
    if (close?.type !== 'turn.closed' || (outcomeLabel(r.outcome) === 'failed{persistence}' && run.storeWrites.failed.length > 0)) continue;
    const logged = close.payload;
    if (
      r.steps !== logged.steps ||
      r.toolCalls !== logged.toolCalls ||
      r.usage.inputTokens !== logged.usage.inputTokens ||
      r.usage.outputTokens !== logged.usage.outputTokens ||
      DETAIL.some((key) => r.usage[key] !== logged.usage[key])
    )
      return `turn ${r.turn} returned ${r.steps} step(s), ${r.toolCalls} tool call(s), ${r.usage.inputTokens}/${r.usage.outputTokens} tokens, but logged ${logged.steps}, ${logged.toolCalls}, ${logged.usage.inputTokens}/${logged.usage.outputTokens}`;
  }
  return undefined;
}

/**
 * A turn's close counts the turn's own events: its usage the sum of its model results', its tool calls no fewer than
 * the calls that started and no more than the calls the model made. For the turns of a run, and for the close crash
 * recovery writes at each crash point (support/recover-and-check.ts).
 */
export function closeCountsItsTurn(turn: number, events: readonly LogEvent[]): string | undefined {
  const t = { turn, events };
  const close = t.events.at(-1);
  if (close?.type !== 'turn.closed') return undefined;
  {
    const { usage, toolCalls } = close.payload;
    // The fallback close (the real one could not be recorded) keeps no usage.
    const fallback = close.payload.outcome.kind === 'failed' && close.payload.outcome.reason === 'internal';
    let inputTokens = 0;
    let outputTokens = 0;
    const detail: Partial<Record<(typeof DETAIL)[number], number>> = {};
    const started = new Set<string>();
    // Calls recovery settled as in flight at a crash (unknown / INTERRUPTED): they may have run, a NONE call's with no start stored.
    const interrupted = new Set<string>();
    let made = 0;
    for (const e of t.events) {
      if (e.type === 'model.result') {
        const u = e.payload.result.usage;
        inputTokens = add(inputTokens, u?.inputTokens);
        outputTokens = add(outputTokens, u?.outputTokens);
        for (const key of DETAIL) if (u?.[key] !== undefined) detail[key] = add(detail[key] ?? 0, u[key]);
      } else if (e.type === 'tool.started') started.add(e.payload.callId);
      else if (e.type === 'assistant.message') made += e.payload.content.filter((b) => b.type === 'tool_call').length;
      else if (e.type === 'tool.result' && e.payload.error?.error_code === 'INTERRUPTED') interrupted.add(e.payload.callId);
    }
    if (!fallback && (usage.inputTokens !== inputTokens || usage.outputTokens !== outputTokens))
      return `turn ${t.turn} closed with usage ${usage.inputTokens}/${usage.outputTokens} tokens, but its model results reported ${inputTokens}/${outputTokens}`;
    for (const key of DETAIL) {
      if (!fallback && usage[key] !== detail[key])
        return `turn ${t.turn} closed with ${key} ${usage[key] ?? 'absent'}, but its model results reported ${detail[key] ?? 'none'}`;
    }
    if (toolCalls < started.size || toolCalls > made)
      return `turn ${t.turn} closed counting ${toolCalls} tool call(s), but ${started.size} started and the model made ${made}`;
    // A recovered close counts the calls it settled as interrupted too (outside probe 59, LOW-1: a NONE lookup in flight
    // at the crash, its start never stored, was counted 0 — a dashboard on toolCalls under-counted exactly the crashed turns).
    const ranOrMay = new Set([...started, ...interrupted]).size;
    if (close.payload.recovered && toolCalls < ranOrMay)
      return `turn ${t.turn} closed by recovery counting ${toolCalls} tool call(s), but ${ranOrMay} started or were settled interrupted (they may have run)`;
  }
  return undefined;
}
