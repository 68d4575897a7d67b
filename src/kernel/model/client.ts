/**
 * The normalized model-client contract (DESIGN.md, "The normalized provider response").
 *
 * Every provider adapter and every fake implements `ModelClient`. A call streams
 * deltas through `onDelta` and settles with exactly one `ModelResult`. It never
 * rejects: every way a call can end — including a thrown SDK error, a dropped
 * connection or an abort — is one of the result variants below.
 */

// ---------------------------------------------------------------------------
// Messages: what the model sees. The kernel's projection produces these.
// ---------------------------------------------------------------------------

export interface TextBlock {
  readonly type: 'text';
  readonly text: string;
}

export interface ToolCallBlock {
  readonly type: 'tool_call';
  readonly id: string;
  readonly name: string;
  /** Parsed arguments as the model gave them (lenient-parsed; not yet validated). */
  readonly args: unknown;
}

export type ToolResultStatus = 'ok' | 'failed' | 'unknown';

export interface ToolResultBlock {
  readonly type: 'tool_result';
  readonly callId: string;
  readonly status: ToolResultStatus;
  /** The text the model reads (rendered, truncated, redacted). */
  readonly content: string;
}

export type AssistantBlock = TextBlock | ToolCallBlock;
export type UserBlock = TextBlock | ToolResultBlock;

export interface UserMessage {
  readonly role: 'user';
  readonly content: readonly UserBlock[];
}

export interface AssistantMessage {
  readonly role: 'assistant';
  readonly content: readonly AssistantBlock[];
}

export type Message = UserMessage | AssistantMessage;

// ---------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------

/** A JSON Schema object, as providers expect for tool input. */
export type JsonSchema = { readonly [key: string]: unknown };

export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
}

export interface ModelRequest {
  readonly model: string;
  readonly system: string;
  readonly messages: readonly Message[];
  readonly tools: readonly ToolSpec[];
  readonly maxTokens: number;
  readonly temperature?: number;
  /** Aborts the call; the client settles with `transport_error{aborted}`. */
  readonly signal?: AbortSignal;
  /** Per-call timeout; the client settles with `transport_error{timeout}`. */
  readonly timeoutMs?: number;
}

// ---------------------------------------------------------------------------
// Streaming deltas (logged for people, never projected)
// ---------------------------------------------------------------------------

export type ModelDelta =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'tool_call_start'; readonly index: number; readonly id: string; readonly name: string }
  | { readonly kind: 'tool_args'; readonly index: number; readonly json: string };

// ---------------------------------------------------------------------------
// Results: exactly one per call
// ---------------------------------------------------------------------------

export interface Usage {
  /** Every input token of the request, those read from or written to a cache included. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Of `inputTokens`, those read from the provider's prompt cache. */
  readonly cacheReadTokens?: number;
  /** Of `inputTokens`, those written to the provider's prompt cache. */
  readonly cacheWriteTokens?: number;
  readonly reasoningTokens?: number;
}

export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly args: unknown;
  /** The raw argument text, when the provider sent text (kept for diagnosis). */
  readonly rawArgs?: string;
}

export const TRANSPORT_ERROR_KINDS = [
  'timeout',
  'rate_limited',
  'overloaded',
  'server_error',
  'network',
  'auth',
  'invalid_request',
  'malformed_stream',
  'aborted',
] as const;
export type TransportErrorKind = (typeof TRANSPORT_ERROR_KINDS)[number];

interface ResultBase {
  /** Present whenever the provider reported usage. */
  readonly usage?: Usage;
  /** The provider's raw stop reason, when there was one. */
  readonly stopReason?: string;
}

export interface ReplyResult extends ResultBase {
  readonly type: 'reply';
  readonly content: readonly AssistantBlock[];
  readonly text: string;
}

export interface ToolUseResult extends ResultBase {
  readonly type: 'tool_use';
  /** Text and tool calls, in the order the model produced them. */
  readonly content: readonly AssistantBlock[];
  readonly calls: readonly ToolCall[];
  readonly text: string;
}

export interface MaxTokensResult extends ResultBase {
  readonly type: 'max_tokens';
  readonly content: readonly AssistantBlock[];
  readonly text: string;
  /** True when generation stopped inside a tool call: that call is never executable. */
  readonly partialToolCall: boolean;
}

export interface RefusalResult extends ResultBase {
  readonly type: 'refusal';
  readonly text: string;
  readonly details?: unknown;
}

export interface ContextWindowExceededResult extends ResultBase {
  readonly type: 'context_window_exceeded';
  readonly at: 'request' | 'generation';
  /** What the model had produced before the window ran out (generation only). */
  readonly content: readonly AssistantBlock[];
  readonly message: string;
}

export interface UnknownStopResult extends ResultBase {
  readonly type: 'unknown';
  readonly stopReason: string;
  readonly content: readonly AssistantBlock[];
  readonly text: string;
}

export interface TransportErrorResult extends ResultBase {
  readonly type: 'transport_error';
  readonly kind: TransportErrorKind;
  readonly message: string;
  /** HTTP status, when there was one. */
  readonly status?: number;
  /** Milliseconds the provider asked us to wait (retry-after), when it said. */
  readonly retryAfterMs?: number;
}

export type ModelResult =
  | ReplyResult
  | ToolUseResult
  | MaxTokensResult
  | RefusalResult
  | ContextWindowExceededResult
  | UnknownStopResult
  | TransportErrorResult;

export type ModelResultType = ModelResult['type'];

export interface ModelClient {
  /** A short name for logs and traces, e.g. `anthropic:claude-sonnet-4-5`. */
  readonly name: string;
  /**
   * The model this client is asked for. The loop names it in every request it
   * sends through this client (and records it): a fallback on another provider is
   * never asked for the primary's model. A client without one is asked for the
   * loop's configured model (`LoopConfig.model`).
   */
  readonly model?: string;
  /**
   * Sends one request. Streams deltas through `onDelta`, then settles with exactly
   * one result. Never rejects, never settles twice.
   */
  call(request: ModelRequest, onDelta?: (delta: ModelDelta) => void): Promise<ModelResult>;
}

/**
 * What keeps `client` from being a ModelClient, as one line starting with `at` (`model`, `fallbackModels[1]`),
 * or undefined. A client without a name would be found only on its first request, when the log cannot record it.
 */
export function modelClientProblem(client: unknown, at: string): string | undefined {
  if (typeof client !== 'object' || client === null)
    return `${at}: expected a model client ({ name, call }), got ${client === null ? 'null' : typeof client === 'string' ? 'a string' : typeof client}`;
  const c = client as { name?: unknown; call?: unknown; model?: unknown };
  if (typeof c.name !== 'string' || c.name === '')
    return `${at}: the model client has no name (a non-empty string, e.g. "anthropic:claude-sonnet-4-6", that the log records on every request)`;
  if (typeof c.call !== 'function') return `${at}: the model client has no call(request, onDelta) function`;
  if (c.model !== undefined && (typeof c.model !== 'string' || c.model === ''))
    return `${at}: the model client's model is not a model name (a non-empty string)`;
  return undefined;
}

/** Joins the text blocks of assistant content. */
export function textOf(content: readonly AssistantBlock[]): string {
  let out = '';
  for (const block of content) if (block.type === 'text') out += block.text;
  return out;
}
