/**
 * The tracer used on its own, as a case of `loopgate run`: `contract:trace/<id>`.
 *
 * `Tracer` is exported: an agent's own `tracing` (`loopDeps`) or code that traces
 * its own work builds one. In dev mode `end()` throws a `TraceLifecycleError`
 * naming the spans left open, after the record is complete — and only then: the
 * loop and the host catch that throw and read the record again, so no scenario
 * can tell a dev-mode tracer that throws at every end, or at none, from one that
 * throws when it should. A caller's own `finish` that exports after `end()` would
 * lose every clean trace to the first, and never hear of an open span with the
 * second. Here a dev-mode tracer ends one trace whose spans all ended and one
 * with a span left open.
 */
import { Tracer, TraceLifecycleError, type TraceRecord } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';

function ended(tracer: Tracer): { record?: TraceRecord; thrown?: unknown } {
  try {
    return { record: tracer.end() };
  } catch (error) {
    return { thrown: error };
  }
}

function describeThrown(thrown: unknown): string {
  return thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown);
}

async function devTracerThrowsOnlyAtAnOpenSpan(): Promise<CheckResult[]> {
  let now = 0;
  const clock = { now: () => now++ };

  const clean = new Tracer({ clock, traceId: 'clean', mode: 'dev' });
  const turn = clean.startSpan('turn', 'turn 1');
  const tool = turn.child('tool', 'lookup_order');
  tool.end('ok');
  turn.end('ok');
  const first = ended(clean);

  const leaky = new Tracer({ clock, traceId: 'leaky', mode: 'dev' });
  const turn2 = leaky.startSpan('turn', 'turn 1');
  turn2.child('tool', 'lookup_order'); // never ended
  turn2.end('ok');
  const second = ended(leaky);
  const again = ended(leaky); // ending twice returns the first record
  const violation = 'spans left open at trace end: tool:lookup_order';
  const statuses = again.record?.spans.map((s) => `${s.kind}:${String(s.status)}`).join(', ') ?? 'no record';

  return [
    {
      name: 'a trace whose spans all ended ends without a throw, no violation',
      passed: first.thrown === undefined && first.record?.violations.length === 0,
      message: first.thrown !== undefined ? `end() threw ${describeThrown(first.thrown)}` : `violations: ${JSON.stringify(first.record?.violations)}`,
      expected: 'a record, violations []',
      actual: first.thrown !== undefined ? describeThrown(first.thrown) : JSON.stringify(first.record?.violations),
    },
    {
      name: 'a span left open: end() throws a TraceLifecycleError naming it',
      passed: second.thrown instanceof TraceLifecycleError && second.thrown.message === violation,
      message: second.thrown === undefined ? 'end() returned without a throw' : `end() threw ${describeThrown(second.thrown)}`,
      expected: `TraceLifecycleError: ${violation}`,
      actual: second.thrown === undefined ? 'no throw' : describeThrown(second.thrown),
    },
    {
      name: 'the record is complete all the same: the span undetermined, the violation recorded',
      passed:
        again.thrown === undefined && statuses === 'turn:ok, tool:undetermined' && JSON.stringify(again.record?.violations) === JSON.stringify([violation]),
      message:
        again.thrown !== undefined
          ? `end() again threw ${describeThrown(again.thrown)}`
          : `spans ${statuses}; violations ${JSON.stringify(again.record?.violations)}`,
      expected: `spans turn:ok, tool:undetermined; violations ${JSON.stringify([violation])}`,
      actual: again.thrown !== undefined ? describeThrown(again.thrown) : `spans ${statuses}; violations ${JSON.stringify(again.record?.violations)}`,
    },
  ];
}

export function tracerCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:trace/dev-tracer-throws-only-at-an-open-span',
        title: 'trace: a dev-mode Tracer ends a clean trace without a throw, and throws TraceLifecycleError naming a span left open',
        file: 'src/harness/tracer-cases.ts',
      },
      devTracerThrowsOnlyAtAnOpenSpan,
    ),
  ];
}
