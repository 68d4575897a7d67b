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
 *
 * `snapshot()` is the tracer's live view: the spans so far, while the turn
 * runs, each built as `end()` would build it (name and string attributes
 * redacted, attribute sets merged), open ones without status or end. The loop
 * only ever ends its tracers, so no scenario reads a snapshot:
 * `contract:trace/snapshot-shows-the-spans-so-far` takes one mid-turn.
 */
import { createRedactor, Tracer, TraceLifecycleError, type TraceRecord } from '../kernel/index.ts';
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

const TOKEN = 'tok-7Hq2Lm9Xv4Rb';

function snapshotShowsTheSpansSoFar(): CheckResult[] {
  let now = 0;
  const clock = { now: () => now++ };
  const tracer = new Tracer({ clock, traceId: 'live', redact: createRedactor({ secrets: [TOKEN] }) });
  const turn = tracer.startSpan('turn', 'turn 1', undefined, { trigger: 'Where is my kettle?' });
  const tool = turn.child('tool', `lookup ${TOKEN}`, { callId: 'look' });
  tool.setAttributes({ args: `{"token":"${TOKEN}"}` });
  tool.end('ok', { status: 'ok' });
  turn.child('model_call', 'model call 2');
  const live = tracer.snapshot();
  const shown = (spans: readonly unknown[]) =>
    JSON.stringify(
      spans.map((s) => {
        const span = s as
          | { id?: unknown; parentId?: unknown; kind?: unknown; name?: unknown; start?: unknown; end?: unknown; status?: unknown; attributes?: unknown }
          | undefined;
        return span === undefined
          ? null
          : [span.id, span.parentId ?? null, span.kind, span.name, span.start, span.end ?? null, span.status ?? null, span.attributes];
      }),
    );
  const expected = JSON.stringify([
    ['live.0', null, 'turn', 'turn 1', 0, null, null, { trigger: 'Where is my kettle?' }],
    ['live.1', 'live.0', 'tool', 'lookup [REDACTED]', 1, 2, 'ok', { callId: 'look', args: '{"token":"[REDACTED]"}', status: 'ok' }],
    ['live.2', 'live.0', 'model_call', 'model call 2', 3, null, null, {}],
  ]);
  const actual = shown(live);
  turn.end('ok');
  const record = tracer.end();
  const after = JSON.stringify(record.spans.map((s) => `${s.kind}:${String(s.status)}`));
  return [
    {
      name: 'a snapshot mid-turn: every span so far, redacted and merged, the open ones without status or end',
      passed: actual === expected,
      message: actual,
      expected,
      actual,
    },
    {
      name: 'the trace goes on and ends as usual after it',
      passed: tracer.ended && after === '["turn:ok","tool:ok","model_call:undetermined"]',
      message: after,
      expected: '["turn:ok","tool:ok","model_call:undetermined"]',
      actual: after,
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
    checksCase(
      {
        id: 'contract:trace/snapshot-shows-the-spans-so-far',
        title: "trace: a Tracer's snapshot mid-turn shows every span so far, names and attributes redacted, open spans without status",
        file: 'src/harness/tracer-cases.ts',
        secrets: [TOKEN],
      },
      snapshotShowsTheSpansSoFar,
    ),
  ];
}
