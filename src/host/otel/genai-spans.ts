/**
 * A turn's trace as OpenTelemetry spans under the GenAI semantic conventions
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/; the attribute names are
 * those `@opentelemetry/semantic-conventions` 1.45 ships, where the GenAI group is
 * marked as moved to its own repository with the names unchanged):
 *
 * - the turn is `invoke_agent` (INTERNAL): the conversation, the outcome;
 * - a model call is `chat {model}` (CLIENT): provider, model, token usage,
 *   finish reasons, `error.type` when it failed;
 * - a tool execution is `execute_tool {tool}` (INTERNAL): tool name, call id;
 *   its arguments and result are opt-in in the conventions and not exported;
 * - policy decisions, backoffs, compactions and checkpoints keep loopgate's names.
 *
 * Every span also carries loopgate's own attributes as `loopgate.*` (turn, step,
 * attempt, side-effect level, outcome, its exact status). Pure: it plans spans;
 * otlp-exporter.ts sends them. Every string goes through `redact` (names too).
 */
import { type Attributes, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
} from '@opentelemetry/semantic-conventions/incubating';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import type { AttributeValue, SpanRecord, TraceRecord } from '../../kernel/index.ts';

export interface PlannedSpan {
  /** The loopgate span it comes from (ids, parent, times). */
  readonly source: SpanRecord;
  readonly name: string;
  readonly kind: SpanKind;
  readonly attributes: Attributes;
  readonly status: { readonly code: SpanStatusCode; readonly message?: string };
}

export interface GenAiOptions {
  /** `gen_ai.agent.name` of the turn span, and its name's suffix. */
  readonly agentName?: string;
  readonly redact: (text: string) => string;
}

/** loopgate attributes that become GenAI attributes (or are not exported) instead of `loopgate.*`. */
const CONSUMED: Readonly<Partial<Record<SpanRecord['kind'], readonly string[]>>> = {
  model_call: ['model', 'inputTokens', 'outputTokens'],
  tool: ['tool', 'callId', 'args', 'errorCode'],
  policy: ['tool', 'callId'],
};

export function planGenAiSpans(trace: TraceRecord, options: GenAiOptions): PlannedSpan[] {
  const redact = options.redact;
  const root = trace.spans.find((s) => s.kind === 'turn' && s.parentId === undefined);
  const turn = typeof root?.attributes.turn === 'number' ? root.attributes.turn : undefined;
  const conversation = turn !== undefined && trace.traceId.endsWith(`:${turn}`) ? trace.traceId.slice(0, -`:${turn}`.length) : undefined;
  const firstModelCall = trace.spans.find((s) => s.kind === 'model_call');
  let step: number | undefined; // the step of the latest model call: tools and policies run in it
  const plans: PlannedSpan[] = [];
  for (const span of trace.spans) {
    const a = span.attributes;
    if (span.kind === 'model_call' && typeof a.step === 'number') step = a.step;
    const out: Record<string, AttributeValue> = {};
    let name = span.name;
    let kind = SpanKind.INTERNAL;
    let errorType: string | undefined;
    switch (span.kind) {
      case 'turn':
        name = options.agentName ? `invoke_agent ${options.agentName}` : 'invoke_agent';
        out[ATTR_GEN_AI_OPERATION_NAME] = GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT;
        if (options.agentName) out[ATTR_GEN_AI_AGENT_NAME] = options.agentName;
        if (firstModelCall) out[ATTR_GEN_AI_PROVIDER_NAME] = providerOf(firstModelCall.name);
        if (conversation !== undefined) out[ATTR_GEN_AI_CONVERSATION_ID] = conversation;
        break;
      case 'model_call': {
        const model = typeof a.model === 'string' ? a.model : undefined;
        name = model ? `chat ${model}` : 'chat';
        kind = SpanKind.CLIENT;
        out[ATTR_GEN_AI_OPERATION_NAME] = GEN_AI_OPERATION_NAME_VALUE_CHAT;
        out[ATTR_GEN_AI_PROVIDER_NAME] = providerOf(span.name);
        if (model) out[ATTR_GEN_AI_REQUEST_MODEL] = model;
        if (conversation !== undefined) out[ATTR_GEN_AI_CONVERSATION_ID] = conversation;
        if (typeof a.inputTokens === 'number') out[ATTR_GEN_AI_USAGE_INPUT_TOKENS] = a.inputTokens;
        if (typeof a.outputTokens === 'number') out[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = a.outputTokens;
        const ending = endingOf(a.result, a.kind);
        if (ending.finish) out[ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = [ending.finish];
        errorType = ending.error;
        break;
      }
      case 'tool':
        name = `execute_tool ${String(a.tool ?? span.name)}`;
        out[ATTR_GEN_AI_OPERATION_NAME] = GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL;
        out[ATTR_GEN_AI_TOOL_NAME] = String(a.tool ?? span.name);
        out[ATTR_GEN_AI_TOOL_TYPE] = 'function';
        if (typeof a.callId === 'string') out[ATTR_GEN_AI_TOOL_CALL_ID] = a.callId;
        if (typeof a.errorCode === 'string') errorType = a.errorCode;
        break;
      case 'policy':
        if (typeof a.tool === 'string') out[ATTR_GEN_AI_TOOL_NAME] = a.tool;
        if (typeof a.callId === 'string') out[ATTR_GEN_AI_TOOL_CALL_ID] = a.callId;
        break;
      default:
        break;
    }
    // loopgate's own attributes, as loopgate.* (turn and step on every span).
    const consumed = CONSUMED[span.kind] ?? [];
    for (const key of Object.keys(a)) {
      if (!consumed.includes(key) && a[key] !== null) out[`loopgate.${snakeCase(key)}`] = a[key]!;
    }
    if (turn !== undefined) out['loopgate.turn'] = turn;
    if (span.kind !== 'turn' && step !== undefined && out['loopgate.step'] === undefined) out['loopgate.step'] = step;
    out['loopgate.status'] = span.status ?? 'undetermined';

    const status = statusOf(span, a);
    if (status.code === SpanStatusCode.ERROR && errorType === undefined) errorType = status.error;
    if (errorType !== undefined) out[ATTR_ERROR_TYPE] = errorType;
    plans.push({
      source: span,
      name: redact(name),
      kind,
      attributes: redactAll(out, redact),
      status: status.message !== undefined ? { code: status.code, message: redact(status.message) } : { code: status.code },
    });
  }
  return plans;
}

/** `gen_ai.provider.name` from a client name (`anthropic:claude-…`, `openai-chat:gpt-…`). */
export function providerOf(clientName: string): string {
  const family = clientName.split(':')[0]!;
  if (family === 'openai-chat' || family === 'openai-responses') return 'openai';
  return family;
}

/** How a model call ended: its finish reason (a response came) or its error type. */
function endingOf(result: AttributeValue | undefined, kind: AttributeValue | undefined): { finish?: string; error?: string } {
  switch (result) {
    case 'reply':
      return { finish: 'stop' };
    case 'tool_use':
      return { finish: 'tool_call' };
    case 'max_tokens':
      return { finish: 'length', error: 'max_tokens' };
    case 'refusal':
      return { finish: 'content_filter', error: 'refusal' };
    case 'context_window_exceeded':
      return { error: 'context_window_exceeded' };
    case 'unknown':
      return { error: 'unknown_stop_reason' };
    case 'transport_error':
      return { error: typeof kind === 'string' ? kind : 'transport_error' };
    default:
      return {};
  }
}

/**
 * The OTel status from loopgate's: ok → OK, error → ERROR, cancelled → UNSET (not
 * an error; `loopgate.status` says cancelled), undetermined → ERROR (the span was
 * still open at trace end: a lifecycle bug). A turn always ends ok in loopgate and
 * carries its outcome; a failed one (or `conversation_full`) is shown as ERROR,
 * with the reason as `error.type`, so a collector flags it.
 */
function statusOf(span: SpanRecord, a: SpanRecord['attributes']): { code: SpanStatusCode; message?: string; error?: string } {
  // A turn cut off by a crash (closed `interrupted` by recovery) is an error too: a call of it may have taken effect.
  if (
    span.kind === 'turn' &&
    typeof a.outcome === 'string' &&
    (a.outcome.startsWith('failed') || a.outcome === 'conversation_full' || a.outcome === 'interrupted')
  ) {
    const reason = /^failed\{(.+)\}$/.exec(a.outcome)?.[1] ?? a.outcome;
    return { code: SpanStatusCode.ERROR, message: `the turn ended ${a.outcome}`, error: reason };
  }
  switch (span.status) {
    case 'ok':
      return { code: SpanStatusCode.OK };
    case 'cancelled':
      return { code: SpanStatusCode.UNSET };
    case 'error':
      return { code: SpanStatusCode.ERROR, error: '_OTHER' };
    default:
      return { code: SpanStatusCode.ERROR, message: 'undetermined: the span was still open when the trace ended', error: 'undetermined' };
  }
}

function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function redactAll(attributes: Record<string, AttributeValue>, redact: (text: string) => string): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (typeof value === 'string') out[key] = redact(value);
    else if (Array.isArray(value)) out[key] = value.map((v: string) => redact(v));
    else if (value !== null) out[key] = value;
  }
  return out;
}
