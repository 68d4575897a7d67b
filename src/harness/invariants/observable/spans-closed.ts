/** Invariant 8 from outside a loop: the peer's spans (mapped to loopgate's kinds) are all ended, one root per turn, and the peer ended each trace. */
import type { PeerRun } from '../../loop-port/peer-run.ts';

export function spansClosedObservably(run: PeerRun): string | undefined {
  for (const trace of run.traces) {
    const open = trace.spans.find((s) => s.status === 'undetermined' || s.end === undefined);
    if (open) return `trace of turn ${trace.traceId.replace('peer:', '')}: span ${open.kind} "${open.name}" was never ended`;
    if (trace.violations.length > 0) return trace.violations.join('; ');
    const ids = new Set(trace.spans.map((s) => s.id));
    const roots = trace.spans.filter((s) => s.parentId === undefined || !ids.has(s.parentId));
    if (roots.length !== 1) return `trace ${trace.traceId}: ${roots.length} root spans (${roots.map((r) => r.name).join(', ')}); one turn span is the root`;
  }
  return undefined;
}
