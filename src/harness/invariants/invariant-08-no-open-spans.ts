/**
 * Invariant 8: no span is left open when a trace ends (it would be
 * `undetermined`), and the tracer saw no lifecycle violation. Beyond that: every span of a trace has a parent in
 * that trace (the turn span is the one root), ends after it starts, and ends with
 * a status.
 *
 * A span the agent's own tool executor opened under a call's and left open past
 * the turn (`executor: leaves-span-open`) is the executor's fault, not the loop's:
 * the trace must record it `undetermined` (and the tracer say it was left open),
 * which `span-misuse-recorded` judges with its late end.
 */
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, firstViolation } from './invariant.ts';
import { spansClosedObservably } from './observable/spans-closed.ts';

export const noOpenSpans = defineInvariant({
  id: 'invariant-08-no-open-spans',
  title: 'no span left open at trace end; spans form one tree per turn',
  invariant: 8,
  checkObservable: spansClosedObservably,
  check: (run) =>
    firstViolation(
      () => nothingLeftOpen(run),
      () => spansWellFormed(run),
    ),
});

function nothingLeftOpen(run: ScenarioRun): string | undefined {
  // The spans the executor left open (by id), and how the tracer names them among the spans left open.
  const executors = new Set<string>();
  const named = new Set<string>();
  for (const act of run.spanMisuse ?? [])
    if (act.act === 'end' && act.span) {
      executors.add(act.span.id);
      named.add(`tool:${act.span.name}`);
    }
  const prefix = 'spans left open at trace end: ';
  const executorsOnly = (v: string) =>
    v.startsWith(prefix) &&
    v
      .slice(prefix.length)
      .split(', ')
      .every((s) => named.has(s));
  for (const trace of run.traces) {
    const open = trace.spans.find((s) => s.status === 'undetermined' && !executors.has(s.id));
    if (open) return `trace ${trace.traceId}: span ${open.kind} "${open.name}" was still open when the trace ended`;
    const violations = trace.violations.filter((v) => !executorsOnly(v));
    if (violations.length > 0) return `trace ${trace.traceId}: ${violations.join('; ')}`;
  }
  return undefined;
}

function spansWellFormed(run: ScenarioRun): string | undefined {
  for (const trace of run.traces) {
    const ids = new Set(trace.spans.map((s) => s.id));
    const roots = trace.spans.filter((s) => s.parentId === undefined);
    if (roots.length !== 1 || roots[0]!.kind !== 'turn')
      return `trace ${trace.traceId}: ${roots.length} root span(s) (${roots.map((r) => r.kind).join(', ')}); the turn span must be the only root`;
    for (const span of trace.spans) {
      if (span.parentId !== undefined && !ids.has(span.parentId))
        return `trace ${trace.traceId}: span ${span.kind} "${span.name}" has a parent not in the trace`;
      if (span.status === undefined || span.end === undefined) return `trace ${trace.traceId}: span ${span.kind} "${span.name}" never ended`;
      if (span.end < span.start) return `trace ${trace.traceId}: span ${span.kind} "${span.name}" ends before it starts`;
    }
  }
  return undefined;
}
