/**
 * Invariant 8 beyond "nothing left open": every span of a trace has a parent in
 * that trace (the turn span is the one root), ends after it starts, and ends with
 * a status.
 */
import type { ScenarioRun } from '../../harness/second-host.ts';

export function spansWellFormed(run: ScenarioRun): string | undefined {
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
