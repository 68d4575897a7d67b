/**
 * Invariant 12: providers never reject; the loop never throws; tools always settle.
 *
 * Nothing thrown across the loop's boundary while the case ran. Every provider call settled once,
 * with a well-formed normalized result (never a rejection, no deltas after it);
 * every model request the loop recorded got exactly one result; every tool call
 * got exactly one result (tools always settle). The provider part is skipped
 * when the host swapped in its own client (state-table fixtures use deliberately
 * broken ones, to see the loop survive them).
 */
import { TRANSPORT_ERROR_KINDS, type LogEvent } from '../../kernel/index.ts';
import { runawayText, type ScenarioRun } from '../second-host.ts';
import { VirtualClockStallError } from '../virtual-clock.ts';
import { defineInvariant, firstViolation } from './invariant.ts';
import { viewOf } from './support/log-view.ts';
import { nothingHangsObservably } from './observable/nothing-hangs.ts';

export const nothingThrows = defineInvariant({
  id: 'invariant-12-nothing-throws',
  title: 'providers never reject, the loop never throws, tools always settle',
  invariant: 12,
  checkObservable: nothingHangsObservably,
  check: (run) =>
    firstViolation(
      () => nothingThrown(run),
      () => everythingSettles(run),
    ),
});

/** How many provider steps the scenario scripts as a client that ignores its timeout. */
function scriptedHangs(run: ScenarioRun): number {
  const provider = run.scenario.provider;
  return [...provider.script, ...(provider.fallback ?? [])].filter((step) => step.ignoresTimeout === true).length;
}

/** The messages of the provider steps the scenario scripts as a client that rejects (`reject`). */
function scriptedRejections(run: ScenarioRun): string[] {
  const provider = run.scenario.provider;
  return [...provider.script, ...(provider.fallback ?? [])].flatMap((step) => (step.reject !== undefined ? [step.reject] : []));
}

function nothingThrown(run: ScenarioRun): string | undefined {
  // A log that grew past the case's limit: work that never settles (the fuzz's cases script few steps each).
  if (run.runaway !== undefined) return `the case never settled: ${runawayText(run.runaway)}`;
  if (run.thrown === undefined) return undefined;
  // The case's clock saw nothing left to fire and no progress: starved, as a case the emptied event loop releases
  // (never-settled.ts) — not a throw of the code under test, and its stack is the clock's own.
  if (run.thrown instanceof VirtualClockStallError) return `the case never finished: ${run.thrown.message}`;
  return `the run threw: ${(run.thrown as Error)?.stack ?? String(run.thrown)}`;
}

function everythingSettles(run: ScenarioRun): string | undefined {
  if (run.hostParts.includes('model')) return undefined;
  // A client the scenario scripts as hung (ignoresTimeout) may still be waiting when the case ends: the loop's backstop let go of it.
  let hungAllowed = scriptedHangs(run);
  // A client the scenario scripts to reject broke the contract on purpose, to see the loop survive it: each such rejection once.
  const rejections = scriptedRejections(run);
  for (let i = 0; i < run.responses.length; i++) {
    const r = run.responses[i]!;
    const scripted = r.settled === 'rejected' ? rejections.indexOf(r.error ?? '') : -1;
    if (scripted >= 0) {
      rejections.splice(scripted, 1);
      continue;
    }
    if (r.settled === 'rejected') return `provider call ${i + 1} rejected (${r.error ?? 'no message'}): providers never reject`;
    if (r.settled === 'pending' && hungAllowed > 0) {
      hungAllowed--;
      continue;
    }
    if (r.settled === 'pending') return `provider call ${i + 1} never settled`;
    const shape = resultShapeProblem(r.result);
    if (shape) return `provider call ${i + 1} settled with a malformed result: ${shape}`;
    if (r.lateDeltas > 0) return `provider call ${i + 1} streamed ${r.lateDeltas} delta(s) after it settled`;
  }
  const view = viewOf(run);
  const results = new Map<string, number>();
  for (const e of view.known)
    if (e.type === 'model.result')
      results.set(
        `${e.payload.turn}/${e.payload.step}/${e.payload.attempt}`,
        (results.get(`${e.payload.turn}/${e.payload.step}/${e.payload.attempt}`) ?? 0) + 1,
      );
  // A process that died with a request in flight never wrote its result; recovery closed that turn — or, when no
  // process could read the store back after the crash (run.unreadable: a gap, a garbled record), nothing closed it:
  // that turn stays open as the crash left it (invariant 4), its request and calls without results.
  const recovered = new Set(view.turns.filter((t) => t.recovered).map((t) => t.turn));
  const leftOpen = new Set(run.unreadable !== undefined ? view.turns.filter((t) => t.outcome === undefined).map((t) => t.turn) : []);
  for (const r of view.requests) {
    const { turn, step, attempt } = r.event.payload;
    const n = results.get(`${turn}/${step}/${attempt}`) ?? 0;
    if (n === 0 && (recovered.has(turn) || leftOpen.has(turn))) continue;
    if (n !== 1) return `model request of turn ${turn} step ${step} attempt ${attempt} got ${n} results`;
  }
  const toolResults = new Map<string, number>();
  for (const e of view.known) if (e.type === 'tool.result') toolResults.set(e.payload.callId, (toolResults.get(e.payload.callId) ?? 0) + 1);
  for (const e of view.known) {
    if (e.type !== 'assistant.message') continue;
    for (const b of (e as Extract<LogEvent, { type: 'assistant.message' }>).payload.content) {
      if (b.type === 'tool_call' && toolResults.get(b.id) === undefined && leftOpen.has(e.payload.turn)) continue;
      if (b.type === 'tool_call' && toolResults.get(b.id) !== 1) return `tool call ${b.id} (${b.name}) got ${toolResults.get(b.id) ?? 0} results`;
    }
  }
  return undefined;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isCount = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;

function blocksProblem(content: unknown): string | undefined {
  if (!Array.isArray(content)) return 'content is not a list';
  for (const b of content as { type?: unknown; text?: unknown; id?: unknown; name?: unknown }[]) {
    if (b?.type === 'text' && isString(b.text)) continue;
    if (b?.type === 'tool_call' && isString(b.id) && isString(b.name)) continue;
    return `a content block is neither text nor a tool call: ${JSON.stringify(b)}`;
  }
  return undefined;
}

/** What is wrong with a value that should be a normalized ModelResult, if anything. */
export function resultShapeProblem(result: unknown): string | undefined {
  if (result === null || typeof result !== 'object') return `not an object (${String(result)})`;
  const r = result as Record<string, unknown>;
  if (r['usage'] !== undefined) {
    const u = r['usage'] as Record<string, unknown>;
    if (typeof u !== 'object' || u === null || !isCount(u['inputTokens']) || !isCount(u['outputTokens']))
      return `usage is not two token counts: ${JSON.stringify(r['usage'])}`;
  }
  switch (r['type']) {
    case 'reply':
      return blocksProblem(r['content']) ?? (isString(r['text']) ? undefined : 'a reply without text');
    case 'tool_use': {
      const calls = r['calls'];
      if (!Array.isArray(calls) || calls.length === 0) return 'tool_use without calls';
      if (calls.some((c: { id?: unknown; name?: unknown }) => !isString(c?.id) || !isString(c?.name))) return 'a call without an id or a name';
      return blocksProblem(r['content']) ?? (isString(r['text']) ? undefined : 'tool_use without text');
    }
    case 'max_tokens':
      return (
        blocksProblem(r['content']) ??
        (isString(r['text']) && typeof r['partialToolCall'] === 'boolean' ? undefined : 'max_tokens without text or partialToolCall')
      );
    case 'refusal':
      return isString(r['text']) ? undefined : 'a refusal without text';
    case 'context_window_exceeded':
      return r['at'] === 'request' || r['at'] === 'generation'
        ? (blocksProblem(r['content']) ?? (isString(r['message']) ? undefined : 'an overflow without a message'))
        : `an overflow at ${String(r['at'])}`;
    case 'unknown':
      return isString(r['stopReason'])
        ? (blocksProblem(r['content']) ?? (isString(r['text']) ? undefined : 'an unknown stop without text'))
        : 'an unknown stop without a stop reason';
    case 'transport_error':
      if (!(TRANSPORT_ERROR_KINDS as readonly unknown[]).includes(r['kind'])) return `a transport error of kind ${String(r['kind'])}`;
      if (!isString(r['message'])) return 'a transport error without a message';
      if (r['retryAfterMs'] !== undefined && !isCount(r['retryAfterMs'])) return `retryAfterMs ${String(r['retryAfterMs'])}`;
      return undefined;
    default:
      return `unknown result type ${JSON.stringify(r['type'])}`;
  }
}
