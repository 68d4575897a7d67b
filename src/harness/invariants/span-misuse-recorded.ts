/**
 * A span misused by the agent's own code is the tracer's to record, not to throw
 * (seed 000 §7: in production mode lifecycle misuse is recorded; only dev mode
 * throws). A team's tool executor (`LoopDepsInput.tools`) is handed the turn's
 * span for its calls, and one with a bug keeps it: work that outlives its turn
 * opens a child span after the trace ended. The trace record is final by then,
 * so the misuse must show among the tracer's violations — where an exporter or
 * a dev tool finds it — and the executor's code must not be thrown at.
 *
 * Judged on the scenario's `misuses-span` executor (faulty-executor.ts), which
 * once the case is over opens a child under each span it kept, and on its
 * `leaves-span-open` one, which leaves a span of its own open past the turn (the
 * trace records it undetermined) and ends it twice once the case is over: no act
 * may throw (with `operator.traceMode: dev`, one on an ended trace must); where
 * the harness sees the turn's tracer (the loop driven directly), an act on an
 * ended trace adds exactly one violation — naming the span started after the
 * trace ended, or the span ended after it (once, though ended twice) — and one on
 * a trace still open (a turn a crash left) adds none.
 */
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';

export const spanMisuseRecorded = defineInvariant({
  id: 'span-misuse-recorded',
  title: 'a span misused by the agent’s tool executor after its trace ended is recorded as a violation, never thrown',
  appliesTo: loopgateOnly('the tracer is loopgate’s own', (run) =>
    run.spanMisuse === undefined ? 'no executor in the case misuses a span (executor: misuses-span, leaves-span-open)' : undefined,
  ),
  check: (run) => recorded(run),
});

function recorded(run: ScenarioRun): string | undefined {
  const dev = run.traceMode === 'dev';
  for (const act of run.spanMisuse ?? []) {
    const what =
      act.act === 'child'
        ? `the executor opened a span under call ${act.callId}'s after its turn`
        : `the executor ended its span "${act.span?.name}" (for call ${act.callId}) after its turn, twice`;
    if (!dev && act.threw !== undefined) return `${what}, and the tracer threw at it (${act.threw}); in production mode misuse is recorded, not thrown`;
    // In dev mode misuse throws (after it is recorded): a dev sees it where it happens.
    if (dev && act.traceEnded === true && act.threw === undefined) return `${what} (its trace had ended), in trace mode dev, but the tracer did not throw`;
    if (act.traceEnded === undefined) continue;
    const said = act.act === 'child' ? 'started after the trace ended' : 'ended after the trace ended';
    const late = (act.recorded ?? []).filter((v) => v.includes(said));
    if (act.traceEnded && (late.length !== 1 || act.recorded!.length !== 1))
      return `${what} (its trace had ended), but the tracer recorded ${act.recorded!.length === 0 ? 'no violation' : `${JSON.stringify(act.recorded)}`}, not one naming the span ${said}`;
    if (!act.traceEnded && act.recorded!.length > 0) return `${what} (its trace still open), but the tracer recorded ${JSON.stringify(act.recorded)}`;
  }
  return undefined;
}
