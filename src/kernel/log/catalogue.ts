/**
 * The typed catalogue of event types, each with its version and payload schema.
 *
 * Appends are typed at compile time (the payload type comes from the schema), so
 * the hot path — the loop's builders (log/builders.ts) — does not run zod. Records
 * read back from a store are checked against the schema, because a store is
 * outside the type system; so is a payload handed to the public `append` (a hook
 * handed the log, a host's own code): what the reader would refuse is refused
 * before it is stored.
 *
 * To add an event type: add it here with version 1. To change a payload in a way
 * old readers cannot read, bump its version. An unknown type or a newer version
 * is rejected on read unless the record is marked ignorable (seed 000 §2: fail
 * loudly rather than compute a wrong history quietly).
 */
import { z } from 'zod';
import { CANCEL_SOURCES, FAILURE_REASONS } from '../outcome.ts';
import { TRANSPORT_ERROR_KINDS } from '../model/client.ts';

const seq = z.number().int().nonnegative();
const turn = z.number().int().nonnegative();
const step = z.number().int().nonnegative();

export const intentSchema = z.enum(['follow_up', 'steer', 'inject']);
export type Intent = z.infer<typeof intentSchema>;

const usageSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number().optional(),
  cacheWriteTokens: z.number().optional(),
  reasoningTokens: z.number().optional(),
});

const textBlock = z.object({ type: z.literal('text'), text: z.string() });
const toolCallBlock = z.object({
  type: z.literal('tool_call'),
  id: z.string(),
  name: z.string(),
  args: z.unknown(),
  /** The model gave this call the id of an earlier call (the first of the chain); the loop gave it a fresh id. Not projected. */
  repeatOf: z.string().optional(),
});
const assistantBlock = z.discriminatedUnion('type', [textBlock, toolCallBlock]);

export const outcomeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('replied') }),
  z.object({ kind: z.literal('cancelled'), by: z.enum(CANCEL_SOURCES) }),
  z.object({ kind: z.literal('rejected'), reason: z.string().optional() }),
  z.object({ kind: z.literal('nothing_to_do') }),
  z.object({ kind: z.literal('conversation_full') }),
  z.object({ kind: z.literal('interrupted'), cause: z.literal('store').optional() }),
  z.object({ kind: z.literal('failed'), reason: z.enum(FAILURE_REASONS), detail: z.string().optional() }),
]);

const modelResultSchema = z.object({
  type: z.enum(['reply', 'tool_use', 'max_tokens', 'refusal', 'context_window_exceeded', 'unknown', 'transport_error']),
  stopReason: z.string().optional(),
  usage: usageSchema.optional(),
  kind: z.enum(TRANSPORT_ERROR_KINDS).optional(),
  status: z.number().optional(),
  retryAfterMs: z.number().optional(),
  at: z.enum(['request', 'generation']).optional(),
  partialToolCall: z.boolean().optional(),
  message: z.string().optional(),
  text: z.string().optional(),
  calls: z.number().optional(),
});

const toolErrorSchema = z.object({
  failed_tool: z.string(),
  error_code: z.string(),
  error_message: z.string(),
  suggestion: z.string(),
});

export const sideEffectSchema = z.enum(['NONE', 'IDEMPOTENT', 'STATEFUL', 'CRITICAL']);

export const EVENT_SCHEMAS = {
  /** A message arrived in the conversation's inbox. */
  'inbox.received': z.object({
    id: z.string(),
    intent: intentSchema,
    text: z.string(),
    source: z.string(),
  }),
  /** Messages taken into a turn that never reached the model, put back in order. */
  'inbox.returned': z.object({ turn, ids: z.array(z.string()), reason: z.string() }),
  'turn.opened': z.object({ turn, trigger: z.string() }),
  /** An inbox message taken into a turn; becomes a user message in the projection. */
  'user.message': z.object({
    turn,
    id: z.string(),
    intent: intentSchema,
    text: z.string(),
    /** The input filter dropped it: taken (never delivered again) but not shown to the model. */
    dropped: z.boolean().optional(),
  }),
  /** The system prompt as assembled; recorded whenever it changes. */
  'prompt.assembled': z.object({
    system: z.string(),
    fragments: z.array(z.object({ id: z.string(), priority: z.number() })),
    /** Fragments left out of `system` because they failed (a dynamic fragment that threw), and why. */
    errors: z.array(z.object({ id: z.string(), message: z.string() })).optional(),
  }),
  /** The tool specs offered to the model; recorded whenever they change. */
  'tools.declared': z.object({
    tools: z.array(z.object({ name: z.string(), description: z.string(), inputSchema: z.record(z.string(), z.unknown()) })),
  }),
  /**
   * One model request. Its messages are the projection of the events before
   * `upTo`; system prompt and tools are the events at `prompt` and `tools`.
   */
  'model.request': z.object({
    turn,
    step,
    attempt: z.number().int().nonnegative(),
    client: z.string(),
    model: z.string(),
    upTo: seq,
    prompt: seq,
    tools: seq,
    maxTokens: z.number(),
    temperature: z.number().optional(),
  }),
  'model.delta': z.object({ turn, step, attempt: z.number().int(), delta: z.record(z.string(), z.unknown()) }),
  'model.result': z.object({ turn, step, attempt: z.number().int(), result: modelResultSchema }),
  /** A model error handled by a handler of the error chain: what it decided. */
  'model.error_handled': z.object({
    turn,
    step,
    attempt: z.number().int(),
    handler: z.string(),
    action: z.enum(['retry', 'fail', 'switch_client']),
    delayMs: z.number().optional(),
    detail: z.string(),
  }),
  'assistant.message': z.object({ turn, step, content: z.array(assistantBlock) }),
  'policy.decision': z.object({
    turn,
    step,
    callId: z.string(),
    tool: z.string(),
    decision: z.enum(['allow', 'deny']),
    by: z.enum(['visibility', 'policy', 'approver', 'default', 'budget']),
    rule: z.string(),
  }),
  /** Written (and flushed) before a tool runs: the write-ahead record of an execution. */
  'tool.started': z.object({
    turn,
    step,
    callId: z.string(),
    name: z.string(),
    args: z.unknown(),
    sideEffect: sideEffectSchema,
    attempt: z.number().int().positive(),
    idempotencyKey: z.string().optional(),
  }),
  'tool.result': z.object({
    turn,
    step,
    callId: z.string(),
    name: z.string(),
    status: z.enum(['ok', 'failed', 'unknown']),
    /** The text the model reads. */
    content: z.string(),
    /** The full structured output (redacted), when it was truncated for the model or is structured. */
    output: z.unknown().optional(),
    error: toolErrorSchema.optional(),
    truncatedFrom: z.number().optional(),
    durationMs: z.number(),
    attempts: z.number().int().nonnegative(),
  }),
  /** Compaction: the projection of seqs [from, to] is replaced by a summary. Originals stay. */
  'projection.replaced': z.object({ from: seq, to: seq, summary: z.string(), tokensBefore: z.number(), tokensAfter: z.number() }),
  /** Undo of a compaction. */
  'projection.restored': z.object({ replacement: seq }),
  'cancel.requested': z.object({ by: z.enum(CANCEL_SOURCES), reason: z.string() }),
  /** A listener of the log threw while told of event `seq` (which is stored all the same). For people. */
  'log.listener_failed': z.object({ seq, error: z.string() }),
  'turn.closed': z.object({
    turn,
    outcome: outcomeSchema,
    steps: z.number().int().nonnegative(),
    usage: usageSchema,
    toolCalls: z.number().int().nonnegative(),
    recovered: z.boolean().optional(),
  }),
} as const;

export type EventType = keyof typeof EVENT_SCHEMAS;
export type EventPayload<T extends EventType> = z.infer<(typeof EVENT_SCHEMAS)[T]>;

/** Current version of each type. Bump when old readers must not read the new shape. */
export const EVENT_VERSIONS: { readonly [T in EventType]: number } = {
  'inbox.received': 1,
  'inbox.returned': 1,
  'turn.opened': 1,
  'user.message': 1,
  'prompt.assembled': 1,
  'tools.declared': 1,
  'model.request': 1,
  'model.delta': 1,
  'model.result': 1,
  'model.error_handled': 1,
  'assistant.message': 1,
  'policy.decision': 1,
  'tool.started': 1,
  'tool.result': 1,
  'projection.replaced': 1,
  'projection.restored': 1,
  'cancel.requested': 1,
  'log.listener_failed': 1,
  'turn.closed': 1,
};

/** Types that an older reader may skip: they are for people, never for the model. */
export const IGNORABLE_BY_DEFAULT: ReadonlySet<EventType> = new Set<EventType>(['model.delta', 'log.listener_failed']);

export function isKnownType(type: string): type is EventType {
  return Object.hasOwn(EVENT_SCHEMAS, type);
}
