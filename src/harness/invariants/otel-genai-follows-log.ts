/**
 * What the production host sends to OpenTelemetry says what the log says: the
 * run's traces are exported through the host's own exporter (host/otel:
 * `OtelTraceExporter`, GenAI semantic conventions, on the official SDK) into
 * OpenTelemetry's `InMemorySpanExporter`, and each `chat` span's
 * `gen_ai.usage.input_tokens` / `gen_ai.usage.output_tokens` and
 * `gen_ai.request.model` are held to the `model.result` usage and the
 * `model.request` model of the same turn, step and attempt in the log; each
 * `execute_tool` span's `gen_ai.tool.name` to the call its `gen_ai.tool.call.id`
 * names in the log. A model call whose result is not in the final log (lost with
 * a crash) is not judged.
 *
 * `trace-agrees-with-log` checks loopgate's own trace; nothing checked what
 * reaches a collector — outside probe 7's plant P05 (`gen_ai.usage.input_tokens`
 * carrying the output tokens) passed the gate.
 */
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import type { LogEvent, Usage } from '../../kernel/index.ts';
import { OtelTraceExporter } from '../../host/otel/otel-exporter.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';

export const otelGenAiFollowsLog = defineInvariant({
  id: 'otel-genai-follows-log',
  title: "the OpenTelemetry GenAI spans the host exports carry the log's models, token usage and tool names",
  appliesTo: loopgateOnly("a peer's traces are its own"),
  check: (run) => genAiFollows(run),
});

const INPUT = 'gen_ai.usage.input_tokens';
const OUTPUT = 'gen_ai.usage.output_tokens';
const MODEL = 'gen_ai.request.model';
const OPERATION = 'gen_ai.operation.name';
const TOOL = 'gen_ai.tool.name';
const CALL_ID = 'gen_ai.tool.call.id';

/**
 * One exporter for every run (a provider per run halved the fuzzer's speed),
 * used by one run at a time: each exports its traces, flushes, takes the spans
 * and clears the memory. Nothing leaves the process; the check's own sentences
 * are redacted with the run's secrets like every other.
 */
let shared: { readonly memory: InMemorySpanExporter; readonly exporter: OtelTraceExporter } | undefined;
let queue: Promise<unknown> = Promise.resolve();

function exportedSpans(run: ScenarioRun): Promise<ReadableSpan[]> {
  const next = queue.then(async () => {
    shared ??= (() => {
      const memory = new InMemorySpanExporter();
      return { memory, exporter: new OtelTraceExporter({ spanExporter: memory }) };
    })();
    shared.memory.reset();
    for (const trace of run.traces) shared.exporter.export(trace);
    await shared.exporter.flush();
    const spans = shared.memory.getFinishedSpans();
    shared.memory.reset();
    return spans;
  });
  queue = next.catch(() => undefined);
  return next;
}

async function genAiFollows(run: ScenarioRun): Promise<string | undefined> {
  if (run.traces.length === 0) return undefined;
  const spans = await exportedSpans(run);

  const results = new Map<string, Usage | null>();
  const models = new Map<string, string>();
  const tools = new Map<string, Set<string>>(); // call id → the tools the log started under it
  for (const e of run.log.events) {
    if (e.opaque) continue;
    const event = e as LogEvent;
    if (event.type === 'model.request') models.set(keyOf(event.payload), event.payload.model);
    else if (event.type === 'model.result') results.set(keyOf(event.payload), event.payload.result.usage ?? null);
    else if (event.type === 'tool.started') tools.set(event.payload.callId, (tools.get(event.payload.callId) ?? new Set()).add(event.payload.name));
  }
  for (const span of spans) {
    const a = span.attributes;
    if (a[OPERATION] === 'execute_tool') {
      const callId = a[CALL_ID];
      const names = typeof callId === 'string' ? tools.get(callId) : undefined;
      if (names !== undefined && !names.has(String(a[TOOL])))
        return `span "${span.name}": ${TOOL} is ${String(a[TOOL])}, but the log started call ${String(callId)} as ${[...names].join(', ')}`;
      continue;
    }
    if (a[OPERATION] !== 'chat') continue;
    const key = `${String(a['loopgate.turn'])}/${String(a['loopgate.step'])}/${String(a['loopgate.attempt'])}`;
    const where = `span "${span.name}" (turn/step/attempt ${key})`;
    const model = models.get(key);
    if (model !== undefined && a[MODEL] !== undefined && a[MODEL] !== model)
      return `${where}: ${MODEL} is ${String(a[MODEL])}, but the log's request went to ${model}`;
    if (!results.has(key)) continue;
    const usage = results.get(key);
    for (const [attribute, logged] of [
      [INPUT, usage?.inputTokens],
      [OUTPUT, usage?.outputTokens],
    ] as const) {
      if (a[attribute] !== logged)
        return `${where}: ${attribute} is ${String(a[attribute] ?? '(absent)')}, but the log's result reports ${String(logged ?? '(no usage)')}`;
    }
  }
  return undefined;
}

function keyOf(p: { readonly turn: number; readonly step: number; readonly attempt: number }): string {
  return `${p.turn}/${p.step}/${p.attempt}`;
}
