/**
 * A tool executor that breaks its contract — every call settles with exactly one
 * result — for the tools a scenario names (`tools: [{ name, executor }]`). A team
 * can hand the loop its own executor (`LoopDepsInput.tools`), and one with a bug
 * behaves like this:
 *
 * - `drops-result`: runs the call (it starts, its body runs), then resolves with
 *   no result at all;
 * - `throws-after-start`: runs the call, then throws;
 * - `misuses-span`: answers the call as it should, but keeps the span the loop
 *   handed it (`ctx.trace`) and, once the case is over, opens a child span under
 *   it — work that outlived its turn. The turn's trace has ended by then: the
 *   tracer must record the misuse among its violations and, in production mode,
 *   not throw it into the executor;
 * - `leaves-span-open`: answers the call as it should, but opens a span of its
 *   own under the span the loop handed it and leaves it open past the turn (work it left
 *   running), ending it once the case is over — twice, as a retrying cleanup
 *   would. The trace records that span `undetermined` when it ends (the
 *   executor's fault, not the loop's); the late end is misuse the tracer must
 *   record once (a second end is not news) and, in production mode, not throw;
 * - `skips-redaction`: answers the call with the tool's output as the tool
 *   returned it, secrets in plain text — an executor built without the agent's
 *   redactor. The log redacts every string of every event itself, so the
 *   history, the trace and the model's next request must still hold none.
 *
 * Where the result is lost, the call may have taken effect, so the loop must answer it `unknown`
 * (it may have run; never "failed", which tells the model a refund that happened
 * did not) — whether the loop notices at once or only when the turn closes.
 */
import { REDACTED, type LoopDeps, type SettledToolCall, type SpanHandle, type ToolExecutor, type Tracer } from '../../kernel/index.ts';
import type { ExecutorFault, Scenario } from '../scenario/schema.ts';
import type { FaultLog } from './fault-log.ts';

/** The tools whose calls the executor mishandles, and how. */
export function executorFaults(scenario: Scenario): ReadonlyMap<string, ExecutorFault> {
  return new Map(scenario.tools.flatMap((t) => (t.executor ? [[t.name, t.executor] as const] : [])));
}

/** One late act of a span-misusing executor: a child span opened under a span it kept (`misuses-span`), or its own span ended after its turn (`leaves-span-open`). */
export interface SpanMisuseAct {
  readonly callId: string;
  readonly act: 'child' | 'end';
  /** For `end`: the span's id and name in its trace (the one the trace records undetermined). */
  readonly span?: { readonly id: string; readonly name: string };
  /** Whether the kept span's trace had ended (known only when the harness sees the tracer: the loop driven directly). */
  readonly traceEnded?: boolean;
  /** Violations the tracer recorded for the act (same condition). */
  readonly recorded?: readonly string[];
  /** What the act threw into the executor, if anything. */
  readonly threw?: string;
}

/** The spans a span-misusing executor kept or left open (with the tracer of their turn, when known), and its late acts. */
export class SpanMisuse {
  readonly #kept: { callId: string; span: SpanHandle; tracer: Tracer | undefined; act: 'child' | 'end'; name: string }[] = [];
  readonly #acts: SpanMisuseAct[] = [];
  /** The tracer of the turn running now (the loop driven directly begins one per turn). */
  current: Tracer | undefined;

  keep(callId: string, span: SpanHandle): void {
    this.#kept.push({ callId, span, tracer: this.current, act: 'child', name: '' });
  }

  /** Opens a span of the executor's own under the `span` the loop handed it for the call (naming the call, as OpenTelemetry's tool spans do), and leaves it open until the case is over. */
  leaveOpen(call: { readonly id: string; readonly name: string }, span: SpanHandle): void {
    const name = `work of ${call.id}`;
    this.#kept.push({ callId: call.id, span: span.child('tool', name, { tool: call.name, callId: call.id }), tracer: this.current, act: 'end', name });
  }

  /** Once the case is over: a child span under each kept span, and each span left open ended (twice). Never throws. */
  actLate(log: FaultLog): void {
    for (const { callId, span, tracer, act, name } of this.#kept.splice(0)) {
      log.record(act === 'child' ? `tool executor opens a span under ${callId}'s after its turn` : `tool executor ends its span "${name}" after its turn`);
      const ended = tracer?.ended;
      const before = tracer?.violations.length ?? 0;
      let threw: string | undefined;
      try {
        if (act === 'child') span.child('tool', `late work of ${callId}`).end('ok');
        else {
          span.end('ok');
          span.end('error');
        }
      } catch (error) {
        threw = error instanceof Error ? error.message : String(error);
      }
      this.#acts.push({
        callId,
        act,
        ...(act === 'end' ? { span: { id: span.id, name } } : {}),
        ...(tracer ? { traceEnded: ended === true, recorded: tracer.violations.slice(before) } : {}),
        ...(threw !== undefined ? { threw } : {}),
      });
    }
  }

  get acts(): readonly SpanMisuseAct[] {
    return this.#acts;
  }
}

export function faultyExecutor(
  inner: ToolExecutor,
  faults: ReadonlyMap<string, ExecutorFault>,
  log: FaultLog,
  misuse?: SpanMisuse,
  secrets: readonly string[] = [],
): ToolExecutor {
  return {
    specs: () => inner.specs(),
    parallelSafe: (name) => inner.parallelSafe(name),
    execute: async (call, ctx) => {
      const settled = await inner.execute(call, ctx);
      const fault = faults.get(call.name);
      if (fault === 'misuses-span' && ctx.trace) misuse?.keep(call.id, ctx.trace);
      if (fault === 'leaves-span-open' && ctx.trace) misuse?.leaveOpen(call, ctx.trace);
      if (fault === 'drops-result') {
        log.record(`tool executor drops the result of ${call.id}`);
        return undefined as unknown as SettledToolCall;
      }
      if (fault === 'skips-redaction' && secrets.length > 0) {
        log.record(`tool executor answers ${call.id} with the tool's output unredacted`);
        return unredacted(settled, secrets[0]!);
      }
      if (fault === 'throws-after-start') {
        log.record(`tool executor throws after running ${call.id}`);
        throw new Error(`tool executor failed after running ${call.name}`);
      }
      return settled;
    },
  };
}

/**
 * The settled call as an executor without the redactor would have handed it over:
 * what the pipeline redacted put back (the scenario's tool returns `secret`, the
 * case's first secret, wherever the result reads [REDACTED]).
 */
function unredacted(settled: SettledToolCall, secret: string): SettledToolCall {
  const back = (text: string) => text.split(REDACTED).join(secret);
  const output = settled.output === undefined ? undefined : JSON.parse(back(JSON.stringify(settled.output)));
  return { ...settled, content: back(settled.content), ...(output !== undefined ? { output } : {}) };
}

/** The loop's dependencies with the faulty executor, when the scenario names one. */
export function withExecutorFaults(
  scenario: Scenario,
  log: FaultLog,
  misuse?: SpanMisuse,
  secrets: readonly string[] = [],
): ((deps: LoopDeps) => LoopDeps) | undefined {
  const faults = executorFaults(scenario);
  if (faults.size === 0) return undefined;
  return (deps) => ({ ...deps, tools: faultyExecutor(deps.tools, faults, log, misuse, secrets) });
}
