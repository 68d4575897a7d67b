/**
 * A turn crash recovery closes reaches the trace export like every other turn
 * (README: "each turn is a trace"). The dead process never ended its turn's
 * trace; the turns recovery closes are the ones whose calls' fate is unknown —
 * the turns an operator watching traces most needs to see (outside probe 16,
 * F3: after a kill -9 mid-refund, every turn was exported except the two
 * recovered ones).
 *
 * Judged on the production host's runs (the harness records what the host
 * hands its exporter), for each `turn.closed` marked `recovered` after a crash:
 * - exactly one exported trace of the turn says so: its turn span carries
 *   `recovered: true` and the outcome `interrupted` (`trace-agrees-with-log`
 *   holds its steps and tool calls to the close);
 * - it has one tool span per call recovery settled (the `tool.result` records
 *   of the turn that recovery's life wrote before the close), and no other;
 *   each span's status is the one the tool pipeline gives that result — an
 *   `unknown` result (`INTERRUPTED`) is `cancelled`, a `failed` one (`NOT_RUN`)
 *   `error`; never `ok`.
 *
 * A turn the host left open because the store refused a write (`cause: store`)
 * was traced when its own loop ended it, in the same process: not judged here.
 * Nor are cases of several hosts on one store (`hosts: n`): a turn one host's
 * refused write left open is recovered by another, which cannot tell that from
 * a crash, and the harness files each host's traces with that host's own copy
 * of the log (fuzz seed 1571222005: hosts 2, failAppends 6 and 7 — no trace
 * recorded for the case at all). Judging them needs traces recorded per host.
 */
import type { LogEvent, SpanRecord, TraceRecord } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { viewOf } from './support/log-view.ts';

type Of<T extends LogEvent['type']> = Extract<LogEvent, { type: T }>;

export const recoveredTurnsTraced = defineInvariant({
  id: 'recovered-turns-traced',
  title: 'a turn crash recovery closes is exported as one trace: interrupted, recovered, a tool span per call recovery settled',
  appliesTo: loopgateOnly('crash recovery and its trace are the production host’s'),
  check: (run) => (run.host === 'production' && (run.scenario.hosts ?? 1) === 1 ? untraced(run) : undefined),
});

function rootOf(trace: TraceRecord): SpanRecord | undefined {
  return trace.spans.find((s) => s.kind === 'turn' && s.parentId === undefined);
}

function untraced(run: ScenarioRun): string | undefined {
  const known = viewOf(run).known;
  const opens = run.opens ?? [];
  for (const event of known) {
    if (event.type !== 'turn.closed' || event.payload.recovered !== true) continue;
    const closed = event as Of<'turn.closed'>;
    const turn = closed.payload.turn;
    if ((closed.payload.outcome as { cause?: string }).cause === 'store') continue;
    const where = `turn ${turn} (closed by crash recovery at seq ${closed.seq})`;
    const traces = run.traces.filter((t) => {
      const root = rootOf(t);
      return root?.attributes.turn === turn && root.attributes.recovered === true;
    });
    if (traces.length === 0) return `${where}: no trace of it was exported (${run.traces.length} trace(s) were, none of this turn marked recovered)`;
    if (traces.length > 1) return `${where}: ${traces.length} traces of it were exported`;
    const trace = traces[0]!;
    const root = rootOf(trace)!;
    if (root.attributes.outcome !== 'interrupted')
      return `${where}: its trace's turn span has outcome ${JSON.stringify(root.attributes.outcome) ?? 'absent'}, but the close records interrupted`;
    // Recovery writes first in the life that opened the log: its records run from that life's start to the close.
    const from = Math.max(0, ...opens.filter((o) => o <= closed.seq));
    const settled = new Map<string, Of<'tool.result'>>();
    for (const e of known)
      if (e.type === 'tool.result' && e.payload.turn === turn && e.seq >= from && e.seq < closed.seq) settled.set(e.payload.callId, e as Of<'tool.result'>);
    const spans = trace.spans.filter((s) => s.kind === 'tool');
    for (const [callId, result] of settled) {
      const span = spans.find((s) => s.attributes.callId === callId);
      if (!span) return `${where}: recovery settled call ${callId} (${result.payload.name}) ${result.payload.status}, but its trace has no tool span for it`;
      const code = result.payload.error?.error_code;
      const expected = result.payload.status === 'ok' ? 'ok' : code === 'INTERRUPTED' || code === 'CANCELLED' ? 'cancelled' : 'error';
      if (span.status !== expected)
        return `${where}: the tool span of call ${callId} is ${span.status ?? 'open'}, but recovery settled it ${result.payload.status}${code ? ` (${code})` : ''}: ${expected}`;
      if (span.name !== result.payload.name)
        return `${where}: the tool span of call ${callId} is named ${JSON.stringify(span.name)}, not by its tool ${result.payload.name}`;
    }
    const extra = spans.find((s) => !settled.has(String(s.attributes.callId)));
    if (extra) return `${where}: its trace has a tool span for call ${String(extra.attributes.callId)}, which recovery did not settle`;
  }
  return undefined;
}
