/**
 * The trace tells what the log tells (DESIGN: "the turn span always completes
 * and carries the outcome"). People read a turn from its spans — in the HTML
 * report, in the OpenTelemetry backend the production host exports to — and
 * must read the same story the log records:
 *
 * - the turn span of a turn the loop closed carries that close's outcome, step
 *   count and tool-call count;
 * - each model-call span carries the result kind and token counts of the
 *   `model.result` of its step and attempt;
 * - each tool span carries the status, attempts, error code and cut of its
 *   call's `tool.result`, and a started call's span the arguments and
 *   side-effect level of its `tool.started`; every tool span the side-effect
 *   level its tool is declared with, `unknown` for a tool the agent does not
 *   declare (a name the model made up); each policy span the decision, deciding layer and rule of its
 *   call's `policy.decision` (with none, because the store refused the call's record before anyone was asked:
 *   decision `none`, layer `default`, rule `not_recorded`);
 * - every span has a name (what a trace viewer lists);
 * - in a turn whose close is stored (by its loop, not by crash recovery), each backoff span (a retry's wait) is one
 *   `model.error_handled` retry with a delay, in order: its handler and delay, and
 *   its name `wait <delay> ms`; each compaction span is one decision of the
 *   compaction handler, in order: it shrank exactly when the decision is a retry,
 *   and the decision's detail repeats the span's numbers or its detail; the
 *   checkpoint spans that say they extended the turn are the steers the log
 *   received from checkpoints, by hook, in order.
 *
 * The outcome label is written here, not borrowed from the kernel, so a wrong
 * label in the kernel shows as a disagreement rather than agreeing with itself.
 */
import type { LogEvent, SpanRecord, TraceRecord, TurnResult } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { viewOf } from './support/log-view.ts';

type Of<T extends LogEvent['type']> = Extract<LogEvent, { type: T }>;

export const traceAgreesWithLog = defineInvariant({
  id: 'trace-agrees-with-log',
  title: "each turn's spans carry what the log records: outcome, steps, model results, tool results and policy decisions",
  appliesTo: loopgateOnly('spans are compared with loopgate’s event log'),
  check: (run) => disagreement(run),
});

/** `failed{max_steps}`, `cancelled{user}`, `replied`: the label reports and spans use. */
function label(outcome: TurnResult['outcome']): string {
  const o = outcome as { kind: string; reason?: string; by?: string };
  if (o.kind === 'failed') return `failed{${o.reason}}`;
  if (o.kind === 'cancelled') return `cancelled{${o.by}}`;
  return o.kind;
}

interface TurnRecords {
  closed?: Of<'turn.closed'>;
  results: Map<string, Of<'model.result'>>;
  tools: Map<string, Of<'tool.result'>>;
  started: Map<string, Of<'tool.started'>>;
  policy: Map<string, Of<'policy.decision'>>;
}

function byTurn(run: ScenarioRun): Map<number, TurnRecords> {
  const turns = new Map<number, TurnRecords>();
  const of = (turn: number) => {
    let t = turns.get(turn);
    if (!t) turns.set(turn, (t = { results: new Map(), tools: new Map(), started: new Map(), policy: new Map() }));
    return t;
  };
  for (const e of viewOf(run).known) {
    if (e.type === 'turn.closed') of(e.payload.turn).closed = e as Of<'turn.closed'>;
    else if (e.type === 'model.result') of(e.payload.turn).results.set(`${e.payload.step}/${e.payload.attempt}`, e as Of<'model.result'>);
    else if (e.type === 'tool.result') of(e.payload.turn).tools.set(e.payload.callId, e as Of<'tool.result'>);
    else if (e.type === 'tool.started') of(e.payload.turn).started.set(e.payload.callId, e as Of<'tool.started'>);
    else if (e.type === 'policy.decision') of(e.payload.turn).policy.set(e.payload.callId, e as Of<'policy.decision'>);
  }
  return turns;
}

function disagreement(run: ScenarioRun): string | undefined {
  const turns = byTurn(run);
  const view = viewOf(run);
  for (const trace of run.traces) {
    const root = trace.spans.find((s) => s.kind === 'turn' && s.parentId === undefined);
    const turn = root?.attributes.turn;
    if (!root || typeof turn !== 'number') continue; // invariant 8 judges a trace without its turn span
    const records = turns.get(turn);
    if (!records) continue; // a turn whose records a crash lost
    const told = run.results.find((r) => r.turn === turn);
    const found =
      turnSpan(root, records, told) ??
      childSpans(trace, records, brokenExecutors(run), run.sideEffectLevels) ??
      unnamedSpan(trace) ??
      // A turn crash recovery closed: the dead process's spans are gone, its trace (recovered-turns-traced) has only the calls recovery settled.
      (records.closed && records.closed.payload.recovered !== true ? stepsOfTheTurn(trace, view.turns.find((t) => t.turn === turn)?.events ?? []) : undefined);
    if (found) return `trace ${trace.traceId} (turn ${turn}): ${found}`;
  }
  return undefined;
}

/**
 * The turn span says what the caller was told (the loop's result); without a
 * result (a turn of an earlier process), what the log's close records. The two
 * differ only where the close itself could not be stored (failed{persistence}),
 * and invariant 4 holds them together otherwise.
 */
function turnSpan(root: SpanRecord, records: TurnRecords, told: TurnResult | undefined): string | undefined {
  if (root.status === 'undetermined') return undefined; // invariant 8's
  if (told) return differ('turn span', root.attributes, { outcome: label(told.outcome), steps: told.steps, toolCalls: told.toolCalls }, `the turn's result`);
  const closed = records.closed?.payload;
  if (!closed) return undefined; // closed by recovery, or never: no span of the loop carries it
  return differ(
    'turn span',
    root.attributes,
    { outcome: label(closed.outcome), steps: closed.steps, toolCalls: closed.toolCalls },
    `turn.closed (seq ${records.closed!.seq})`,
  );
}

/**
 * Tools whose executor the scenario breaks (`executor:`): the pipeline settles
 * and ends the call's span, then the broken executor loses the result, and the
 * loop writes the result it is owed. The span tells the pipeline's story there.
 */
function brokenExecutors(run: ScenarioRun): ReadonlySet<string> {
  return new Set((run.scenario.tools ?? []).filter((t) => t.executor === 'drops-result' || t.executor === 'throws-after-start').map((t) => t.name));
}

function childSpans(trace: TraceRecord, records: TurnRecords, broken: ReadonlySet<string>, levels: ReadonlyMap<string, string>): string | undefined {
  for (const span of trace.spans) {
    if (span.status === undefined || span.status === 'undetermined') continue;
    const a = span.attributes;
    if (span.kind === 'model_call') {
      const result = records.results.get(`${String(a.step)}/${String(a.attempt)}`);
      if (!result) continue; // an attempt whose result was never written (a crash)
      const r = result.payload.result as { type: string; usage?: { inputTokens?: number; outputTokens?: number } };
      const found = differ(
        `model call span (step ${String(a.step)}, attempt ${String(a.attempt)})`,
        a,
        { result: r.type, inputTokens: r.usage?.inputTokens ?? null, outputTokens: r.usage?.outputTokens ?? null },
        `model.result (seq ${result.seq})`,
      );
      if (found) return found;
    } else if (span.kind === 'tool') {
      const result = records.tools.get(String(a.callId));
      if (!result || broken.has(result.payload.name)) continue;
      const p = result.payload;
      const found = differ(
        `tool span of call ${String(a.callId)}`,
        a,
        { tool: p.name, status: p.status, attempts: p.attempts, errorCode: p.error?.error_code, truncatedFrom: p.truncatedFrom },
        `tool.result (seq ${result.seq})`,
      );
      if (found) return found;
      const started = records.started.get(p.callId);
      const ran = started && startedAgrees(a, started);
      if (ran) return `tool span of call ${p.callId} ${ran}`;
      const level = levels.get(String(a.tool)) ?? 'unknown';
      if (a.sideEffect !== level)
        return `tool span of call ${String(a.callId)} has sideEffect ${JSON.stringify(a.sideEffect) ?? 'absent'}, but ${JSON.stringify(a.tool)} is ${levels.has(String(a.tool)) ? 'declared' : 'not declared:'} ${level}`;
    } else if (span.kind === 'policy') {
      const decision = records.policy.get(String(a.callId));
      if (!decision) {
        // Nothing was decided: the store refused the call's record before anyone was asked (NOT_RECORDED, never
        // started). The span says so, in the layer alphabet every other policy span uses.
        const result = records.tools.get(String(a.callId));
        if (result?.payload.error?.error_code !== 'NOT_RECORDED' || records.started.has(result.payload.callId)) continue;
        const found = differ(
          `policy span of call ${String(a.callId)}`,
          a,
          { decision: 'none', by: 'default', rule: 'not_recorded' },
          `tool.result (seq ${result.seq}: NOT_RECORDED before any decision)`,
        );
        if (found) return found;
        continue;
      }
      const p = decision.payload;
      const found = differ(
        `policy span of call ${String(a.callId)}`,
        a,
        { tool: p.tool, decision: p.decision, by: p.by, rule: p.rule },
        `policy.decision (seq ${decision.seq})`,
      );
      if (found) return found;
    }
  }
  return undefined;
}

function unnamedSpan(trace: TraceRecord): string | undefined {
  const span = trace.spans.find((s) => typeof s.name !== 'string' || s.name.trim().length === 0);
  return span ? `a ${span.kind} span has no name (${JSON.stringify(span.name)})` : undefined;
}

/** The source of a steer a checkpoint hook appended: `checkpoint:<hook name>`. */
export const CHECKPOINT_SOURCE = 'checkpoint:';

/**
 * The waits, compactions and checkpoint extensions of a turn whose close is
 * stored (so every record of it is): the spans and the records pair up in order.
 */
function stepsOfTheTurn(trace: TraceRecord, events: readonly LogEvent[]): string | undefined {
  const handled = events.filter((e): e is Of<'model.error_handled'> => e.type === 'model.error_handled');
  const waits = handled.filter((e) => e.payload.action === 'retry' && (e.payload.delayMs ?? 0) > 0);
  const compactions = handled.filter((e) => e.payload.handler === 'compact-on-overflow' && !e.payload.detail.startsWith('still overflowing'));
  const extensions = events
    .filter((e): e is Of<'inbox.received'> => e.type === 'inbox.received' && e.payload.source.startsWith(CHECKPOINT_SOURCE))
    .map((e) => e.payload.source.slice(CHECKPOINT_SOURCE.length));
  const spans = (kind: string) => trace.spans.filter((s) => s.kind === kind && s.status !== undefined && s.status !== 'undetermined');

  const backoffs = spans('backoff').filter((s) => s.attributes.handler !== 'retry-after-window');
  for (const span of spans('backoff')) {
    if (span.name !== `wait ${String(span.attributes.delayMs)} ms`)
      return `backoff span "${span.name}" does not name its wait of ${String(span.attributes.delayMs)} ms`;
  }
  if (backoffs.length !== waits.length) return `${backoffs.length} backoff span(s) for the ${waits.length} retry wait(s) the log records`;
  for (const [i, span] of backoffs.entries()) {
    const found = differ(
      `backoff span ${i + 1}`,
      span.attributes,
      { handler: waits[i]!.payload.handler, delayMs: waits[i]!.payload.delayMs },
      `model.error_handled (seq ${waits[i]!.seq})`,
    );
    if (found) return found;
  }

  const compacting = spans('compaction');
  if (compacting.length !== compactions.length)
    return `${compacting.length} compaction span(s) for the ${compactions.length} compaction(s) the log records a decision on`;
  for (const [i, span] of compacting.entries()) {
    const a = span.attributes;
    const record = compactions[i]!.payload;
    const retried = record.action === 'retry';
    const said = retried
      ? `compacted ${String(a.tokensBefore)} → ${String(a.tokensAfter)} tokens (estimated)`
      : `compaction did not shrink the projection: ${String(a.detail)}`;
    if (a.shrank !== retried || record.detail !== said)
      return `compaction span ${i + 1} (shrank ${String(a.shrank)}, detail ${JSON.stringify(a.detail)}) disagrees with model.error_handled (seq ${compactions[i]!.seq}): ${record.action}, ${JSON.stringify(record.detail)}`;
  }

  const extended = spans('checkpoint')
    .filter((s) => s.attributes.extended === true)
    .map((s) => s.name);
  if (extended.join('\n') !== extensions.join('\n'))
    return `checkpoint spans say ${JSON.stringify(extended)} extended the turn, but the log received steers from checkpoints ${JSON.stringify(extensions)}`;
  return undefined;
}

/** A started call's span shows the arguments and side-effect level the start record holds (the arguments cut at some length). */
function startedAgrees(a: Readonly<Record<string, unknown>>, started: Of<'tool.started'>): string | undefined {
  const where = `tool.started (seq ${started.seq})`;
  if (a.sideEffect !== started.payload.sideEffect)
    return `has sideEffect ${JSON.stringify(a.sideEffect) ?? 'absent'}, but ${where} records ${JSON.stringify(started.payload.sideEffect)}`;
  const json = JSON.stringify(started.payload.args) ?? '';
  const shown = a.args;
  if (typeof shown !== 'string') return `shows no arguments, but ${where} records ${json.slice(0, 80)}`;
  // Short arguments are shown whole; long ones start the same way, then a cut marker.
  const same = shown === json || (json.length > 1_000 && shown.startsWith(json.slice(0, 1_000)));
  return same ? undefined : `shows arguments ${shown.slice(0, 80)}, but ${where} records ${json.slice(0, 80)}`;
}

/** The first attribute whose value differs from the log's (an absent one differs from any value but undefined). */
function differ(what: string, attributes: Readonly<Record<string, unknown>>, logged: Readonly<Record<string, unknown>>, source: string): string | undefined {
  for (const [key, value] of Object.entries(logged)) {
    if (attributes[key] !== value)
      return `${what} has ${key} ${JSON.stringify(attributes[key]) ?? 'absent'}, but ${source} records ${JSON.stringify(value) ?? 'none'}`;
  }
  return undefined;
}
