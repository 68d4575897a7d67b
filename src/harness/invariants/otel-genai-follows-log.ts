/**
 * What the production host sends to OpenTelemetry says what the log says: the
 * run's traces are exported through the host's own exporter (host/otel:
 * `OtelTraceExporter`, GenAI semantic conventions, on the official SDK) into
 * a span exporter that keeps them in memory, and each `chat` span's
 * `gen_ai.usage.input_tokens` / `gen_ai.usage.output_tokens` and
 * `gen_ai.request.model` are held to the `model.result` usage and the
 * `model.request` model of the same turn, step and attempt in the log, and its
 * `gen_ai.response.finish_reasons` to that result's type and its
 * `gen_ai.provider.name` to the client the request went to; each `chat` and
 * `invoke_agent` span carries the conversation's `gen_ai.conversation.id`; each
 * span's status follows the turn's outcome (invoke_agent: ERROR when it failed, was full or was interrupted), the result (chat) or
 * loopgate's own status (the rest). A chat
 * span must carry the model, `loopgate.step` and `loopgate.attempt`: without them
 * it is joined to nothing and judged on nothing (seed 12, `runner.ts:549`). Each
 * `execute_tool` span's `gen_ai.tool.name` is held to the call its
 * `gen_ai.tool.call.id` names in the log, its `error.type` to the error code of
 * loopgate's own tool span, and that call id itself to the calls of the span's turn and
 * step in the log (the assistant message's tool calls, the started and answered
 * calls): an id the step never had — the tool's name, another step's id —
 * breaks joining a tool span to the model's call in a collector (outside probe 9, plant P15: `gen_ai.tool.call.id` carrying the
 * tool name passed the gate). A model call whose result is not in the final log
 * (lost with a crash) is not judged, nor a tool span of a step the log holds no
 * calls for (a call resumed after a reopen runs before any model call of its trace).
 *
 * `trace-agrees-with-log` checks loopgate's own trace; nothing checked what
 * reaches a collector — outside probe 7's plant P05 (`gen_ai.usage.input_tokens`
 * carrying the output tokens) passed the gate.
 */
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import type { LogEvent, Usage } from '../../kernel/index.ts';
import { OtelTraceExporter } from '../../host/otel/otel-exporter.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';

export const otelGenAiFollowsLog = defineInvariant({
  id: 'otel-genai-follows-log',
  title: "the OpenTelemetry GenAI spans the host exports carry the log's models, token usage, tool names and call ids",
  appliesTo: loopgateOnly("a peer's traces are its own"),
  check: (run) => genAiFollows(run),
});

const INPUT = 'gen_ai.usage.input_tokens';
const OUTPUT = 'gen_ai.usage.output_tokens';
const MODEL = 'gen_ai.request.model';
const OPERATION = 'gen_ai.operation.name';
const TOOL = 'gen_ai.tool.name';
const CALL_ID = 'gen_ai.tool.call.id';
const TOOL_TYPE = 'gen_ai.tool.type';
const CONVERSATION = 'gen_ai.conversation.id';
const ERROR_TYPE = 'error.type';
const FINISH = 'gen_ai.response.finish_reasons';

/**
 * The GenAI semantic conventions' finish reason for each model result that has
 * one (the rest end without): written here, not read from the exporter.
 */
const FINISH_OF: Readonly<Record<string, string>> = { reply: 'stop', tool_use: 'tool_call', max_tokens: 'length', refusal: 'content_filter' };

const PROVIDER = 'gen_ai.provider.name';
/** The semantic conventions' provider for each wire client family (both OpenAI APIs are `openai`). */
const PROVIDER_OF: Readonly<Record<string, string>> = { anthropic: 'anthropic', 'openai-chat': 'openai', 'openai-responses': 'openai' };

/** OpenTelemetry's status codes, as numbers (UNSET 0, OK 1, ERROR 2). */
const STATUS = ['UNSET', 'OK', 'ERROR'] as const;
/** The status a span of each loopgate status is exported with: cancelled is not an error; one left open is. */
const STATUS_OF: Readonly<Record<string, number>> = { ok: 1, error: 2, cancelled: 0, undetermined: 2 };

/**
 * What the host's batch processor hands its span exporter, kept in memory. Like
 * OpenTelemetry's `InMemorySpanExporter`, but it answers the export at once:
 * that one answers on a `setTimeout(0)`, a millisecond of real time per judged
 * run (with the 1 ms sleeps of the virtual clock, a tenth of a fuzzed case's
 * wall time). The spans are the same objects either way.
 */
class CollectingSpanExporter implements SpanExporter {
  spans: ReadableSpan[] = [];
  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.spans.push(...spans);
    resultCallback({ code: ExportResultCode.SUCCESS });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * One exporter for every run (a provider per run halved the fuzzer's speed),
 * used by one run at a time: each exports its traces, flushes, takes the spans
 * and clears the memory. Nothing leaves the process; the check's own sentences
 * are redacted with the run's secrets like every other.
 */
let shared: { readonly memory: CollectingSpanExporter; readonly exporter: OtelTraceExporter } | undefined;
let queue: Promise<unknown> = Promise.resolve();

function exportedSpans(run: ScenarioRun): Promise<ReadableSpan[]> {
  const next = queue.then(async () => {
    shared ??= (() => {
      const memory = new CollectingSpanExporter();
      return { memory, exporter: new OtelTraceExporter({ spanExporter: memory }) };
    })();
    shared.memory.spans = [];
    for (const trace of run.traces) shared.exporter.export(trace);
    await shared.exporter.flush();
    const spans = shared.memory.spans;
    shared.memory.spans = [];
    return spans;
  });
  queue = next.catch(() => undefined);
  return next;
}

async function genAiFollows(run: ScenarioRun): Promise<string | undefined> {
  if (run.traces.length === 0) return undefined;
  const spans = await exportedSpans(run);

  const results = new Map<string, Usage | null>();
  const types = new Map<string, string>(); // turn/step/attempt → the model result's type
  // turn/call id → the error code loopgate's own tool span recorded (trace-agrees-with-log holds it to the log; a
  // call the loop closed itself — not run, interrupted — has the loop's code in the log, not the tool span's)
  // A call id with several tool spans in one turn (a repeated id, an executor that opened a span of its own) is
  // not judged: which exported span is which cannot be told.
  const codes = new Map<string, string | null>();
  for (const trace of run.traces) {
    const turn = trace.spans.find((s) => s.kind === 'turn' && s.parentId === undefined)?.attributes.turn;
    for (const span of trace.spans) {
      if (span.kind !== 'tool' || typeof span.attributes.callId !== 'string') continue;
      const key = `${String(turn)}/${span.attributes.callId}`;
      const code = span.status === 'error' && typeof span.attributes.errorCode === 'string' ? span.attributes.errorCode : null;
      codes.set(key, codes.has(key) ? null : code);
    }
  }
  const clients = new Map<string, string>(); // turn/step/attempt → the client the request went to
  // turn → its outcome, as the turn's own trace tells it (the caller's answer: a close the store refused is
  // failed{persistence} there, whatever the log in memory holds)
  const outcomes = new Map<number, string>();
  for (const trace of run.traces) {
    const root = trace.spans.find((s) => s.kind === 'turn' && s.parentId === undefined);
    if (typeof root?.attributes.turn === 'number' && typeof root.attributes.outcome === 'string') outcomes.set(root.attributes.turn, root.attributes.outcome);
  }
  const models = new Map<string, string>();
  const tools = new Map<string, Set<string>>(); // call id → the tools the log started under it
  const calls = new Map<string, Map<string, Set<string>>>(); // turn/step → call id → the tools the log names under it
  const callOf = (turn: number, step: number, id: string, name: string) => {
    const key = `${turn}/${step}`;
    const ids = calls.get(key) ?? new Map<string, Set<string>>();
    calls.set(key, ids.set(id, (ids.get(id) ?? new Set()).add(name)));
  };
  for (const e of run.log.events) {
    if (e.opaque) continue;
    const event = e as LogEvent;
    if (event.type === 'model.request') {
      models.set(keyOf(event.payload), event.payload.model);
      clients.set(keyOf(event.payload), event.payload.client);
    } else if (event.type === 'model.result') {
      results.set(keyOf(event.payload), event.payload.result.usage ?? null);
      types.set(keyOf(event.payload), event.payload.result.type);
    } else if (event.type === 'tool.started') {
      tools.set(event.payload.callId, (tools.get(event.payload.callId) ?? new Set()).add(event.payload.name));
      callOf(event.payload.turn, event.payload.step, event.payload.callId, event.payload.name);
    } else if (event.type === 'tool.result') callOf(event.payload.turn, event.payload.step, event.payload.callId, event.payload.name);
    else if (event.type === 'assistant.message')
      for (const block of event.payload.content) if (block.type === 'tool_call') callOf(event.payload.turn, event.payload.step, block.id, block.name);
  }
  // The host names each turn's trace `<conversation>:<turn>`: its GenAI spans then carry the conversation's id.
  const conversationKnown = run.traces.length > 0 && run.traces.every((t) => t.traceId.startsWith(`${run.conversation}:`));
  for (const span of spans) {
    const a = span.attributes;
    // Error-rate dashboards and alerts read the span status (outside probe 29, plants O7 and O8: a failed turn
    // exported OK, and every error span UNSET, passed). A turn follows the outcome its own trace records; a chat
    // span the log's result; every other span loopgate's own status.
    const status = expectedStatus(a, outcomes, types);
    if (status !== undefined && span.status.code !== status)
      return `span "${span.name}" (turn ${String(a['loopgate.turn'])}): status ${STATUS[span.status.code] ?? span.status.code}, but ${STATUS[status]} was due (${statusWhy(a, outcomes, types)})`;
    if (a[OPERATION] === 'execute_tool') {
      const callId = a[CALL_ID];
      const where = `span "${span.name}" (turn/step ${String(a['loopgate.turn'])}/${String(a['loopgate.step'])})`;
      const stepCalls = calls.get(`${String(a['loopgate.turn'])}/${String(a['loopgate.step'])}`);
      if (stepCalls !== undefined) {
        if (typeof callId !== 'string') return `${where}: no ${CALL_ID}, but the log's step holds calls ${[...stepCalls.keys()].join(', ')}`;
        const named = stepCalls.get(callId);
        if (named === undefined)
          return `${where}: ${CALL_ID} is ${callId}, but the log's step holds no such call (its calls: ${[...stepCalls.keys()].join(', ')})`;
        if (!named.has(String(a[TOOL]))) return `${where}: ${TOOL} is ${String(a[TOOL])}, but the log's step calls ${callId} ${[...named].join(', ')}`;
      }
      if (a[TOOL_TYPE] !== 'function') return `${where}: ${TOOL_TYPE} is ${String(a[TOOL_TYPE] ?? '(absent)')}, but every tool the log runs is a function`;
      // A failed call's error.type is its result's error code, what a collector groups tool failures by (outside probe
      // 30, plant N7: every one exported as _OTHER passed).
      const code = typeof callId === 'string' ? codes.get(`${String(a['loopgate.turn'])}/${callId}`) : undefined;
      if (typeof code === 'string' && a[ERROR_TYPE] !== code)
        return `${where}: ${ERROR_TYPE} is ${String(a[ERROR_TYPE] ?? '(absent)')}, but the turn's tool span of ${String(callId)} failed ${code}`;
      const names = typeof callId === 'string' ? tools.get(callId) : undefined;
      if (names !== undefined && !names.has(String(a[TOOL])))
        return `span "${span.name}": ${TOOL} is ${String(a[TOOL])}, but the log started call ${String(callId)} as ${[...names].join(', ')}`;
      continue;
    }
    if (a[OPERATION] !== 'chat' && a[OPERATION] !== 'invoke_agent') continue;
    // A collector groups a conversation's turns and calls by it (outside probe 29, plant O3: a chat span without it passed).
    if (conversationKnown && a[CONVERSATION] !== run.conversation)
      return `span "${span.name}" (turn ${String(a['loopgate.turn'])}): ${CONVERSATION} is ${String(a[CONVERSATION] ?? '(absent)')}, but the turn is of conversation ${run.conversation}`;
    if (a[OPERATION] !== 'chat') continue;
    const key = `${String(a['loopgate.turn'])}/${String(a['loopgate.step'])}/${String(a['loopgate.attempt'])}`;
    const where = `span "${span.name}" (turn/step/attempt ${key})`;
    // Every model call is sent to a named model at a known step and attempt: a chat span without them
    // cannot be joined to its request (nor told from a retry of it), and a GenAI consumer groups by the model.
    for (const attribute of ['loopgate.step', 'loopgate.attempt'])
      if (typeof a[attribute] !== 'number') return `${where}: no ${attribute}, so the call cannot be joined to the log's model.request`;
    if (typeof a[MODEL] !== 'string') return `${where}: no ${MODEL}, but every model call the loop makes names its model`;
    const family = clients.get(key)?.split(':')[0];
    const provider = family === undefined ? undefined : PROVIDER_OF[family];
    if (provider !== undefined && a[PROVIDER] !== provider)
      return `${where}: ${PROVIDER} is ${String(a[PROVIDER] ?? '(absent)')}, but the log's request went to the ${family} client (${provider})`;
    const model = models.get(key);
    if (model !== undefined && a[MODEL] !== model) return `${where}: ${MODEL} is ${String(a[MODEL])}, but the log's request went to ${model}`;
    if (!results.has(key)) continue;
    // What the call ended with (outside probe 29, plant O4: a tool-use answer reported as 'stop' passed).
    const type = types.get(key)!;
    const finish = FINISH_OF[type];
    const told = a[FINISH];
    const finishes = Array.isArray(told) ? told.map(String) : told === undefined ? [] : [String(told)];
    if (finishes.join(',') !== (finish ?? ''))
      return `${where}: ${FINISH} is ${finishes.length ? `[${finishes.join(', ')}]` : '(absent)'}, but the log's result is ${type}${finish ? ` (${finish})` : ', which has none'}`;
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

/** The status due to an exported span, or undefined where the log cannot say. */
function expectedStatus(a: ReadableSpan['attributes'], outcomes: ReadonlyMap<number, string>, types: ReadonlyMap<string, string>): number | undefined {
  if (a[OPERATION] === 'invoke_agent') {
    const outcome = outcomes.get(Number(a['loopgate.turn']));
    // A turn cut off by a crash is an error to whoever watches the collector: a call of it may have taken effect
    // (outside probe 36, M1: exported OK after a SIGKILL inside a STATEFUL tool).
    return outcome === undefined ? undefined : outcome.startsWith('failed') || outcome === 'conversation_full' || outcome === 'interrupted' ? 2 : 1;
  }
  if (a[OPERATION] === 'chat') {
    const type = types.get(`${String(a['loopgate.turn'])}/${String(a['loopgate.step'])}/${String(a['loopgate.attempt'])}`);
    if (type === 'reply' || type === 'tool_use') return 1;
    if (type !== undefined && type !== 'transport_error') return 2;
  }
  const own = a['loopgate.status'];
  return typeof own === 'string' ? STATUS_OF[own] : undefined;
}

function statusWhy(a: ReadableSpan['attributes'], outcomes: ReadonlyMap<number, string>, types: ReadonlyMap<string, string>): string {
  if (a[OPERATION] === 'invoke_agent') return `the turn ended ${outcomes.get(Number(a['loopgate.turn']))}`;
  const type = types.get(`${String(a['loopgate.turn'])}/${String(a['loopgate.step'])}/${String(a['loopgate.attempt'])}`);
  if (a[OPERATION] === 'chat' && type !== undefined && type !== 'transport_error') return `the log's result is ${type}`;
  return `loopgate's status is ${String(a['loopgate.status'])}`;
}

function keyOf(p: { readonly turn: number; readonly step: number; readonly attempt: number }): string {
  return `${p.turn}/${p.step}/${p.attempt}`;
}
