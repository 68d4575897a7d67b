/**
 * Tool declarations and the contract between the loop and the tool pipeline
 * (seed 000 §5; seed 001 §2.5, §2.8, §3.4; seed 003 §2.4).
 */
import type { z } from 'zod';
import type { Clock } from '../clock.ts';
import type { ToolCall, ToolResultStatus, ToolSpec } from '../model/client.ts';

/** Drives retry: what a second execution could do to the world. */
export type SideEffect = 'NONE' | 'IDEMPOTENT' | 'STATEFUL' | 'CRITICAL';

export interface ToolRunContext {
  readonly signal: AbortSignal;
  readonly callId: string;
  /** 1 for the first execution; retries count up (only NONE and IDEMPOTENT tools retry). */
  readonly attempt: number;
  /** Stable across retries and model repeats of one call, unique across calls and conversations (`<conversation>/<tool>:<call id>`): pass it to the downstream API. */
  readonly idempotencyKey: string;
  /**
   * The W3C `traceparent` of this execution's span, when the host traces with W3C
   * trace context: send it as the `traceparent` header of downstream calls so their
   * spans join the turn's trace under this tool.
   */
  readonly traceparent?: string;
}

/** The structured failure the model reads (seed 001 §3.4). */
export interface ToolError {
  readonly failed_tool: string;
  readonly error_code: string;
  readonly error_message: string;
  readonly suggestion: string;
}

/** Thrown (or returned via `toolFailure`) by a tool to fail with a code the model can act on. */
export class ToolFailure extends Error {
  readonly code: string;
  readonly suggestion: string;
  readonly retryable: boolean;
  constructor(code: string, message: string, options: { suggestion?: string; retryable?: boolean } = {}) {
    super(message);
    this.name = 'ToolFailure';
    this.code = code;
    this.suggestion = options.suggestion ?? '';
    this.retryable = options.retryable ?? false;
  }
}

export interface ToolDeclaration<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  /** Unique; duplicates are refused when the registry is built. */
  readonly name: string;
  /** What the model reads to decide whether to call it. */
  readonly description: string;
  readonly input: I;
  readonly output?: O;
  readonly sideEffect: SideEffect;
  /** Longest a single execution may take; past it the result is `unknown`. */
  readonly timeoutMs?: number;
  /** May it run concurrently with other parallel-safe calls of the same step? */
  readonly parallelSafe?: boolean;
  /** Retries after a failure (NONE and IDEMPOTENT only). Default 2 for NONE, 2 for IDEMPOTENT. */
  readonly maxRetries?: number;
  readonly run: (args: z.infer<I>, ctx: ToolRunContext) => Promise<z.infer<O>> | z.infer<O>;
  /** The text the model reads for a successful result. Default: JSON. */
  readonly renderForModel?: (output: z.infer<O>) => string;
  /** A pure rendering for people (UIs, reports); called on replay, long after the fact. */
  readonly renderForPeople?: (args: z.infer<I>, result: SettledToolCall) => string;
}

export type AnyToolDeclaration = ToolDeclaration<z.ZodType, z.ZodType>;

/** What the loop learns about one call once the pipeline has settled it. */
export interface SettledToolCall {
  readonly callId: string;
  readonly name: string;
  readonly status: ToolResultStatus;
  /** The text the model reads (rendered, truncated, redacted). */
  readonly content: string;
  /** Full structured output, redacted (kept in the log even when truncated for the model). */
  readonly output?: unknown;
  readonly error?: ToolError;
  /** Characters in the full rendering when `content` was truncated. */
  readonly truncatedFrom?: number;
  readonly durationMs: number;
  /** Executions actually started (0 when denied or invalid). */
  readonly attempts: number;
}

export type PolicyDecision = {
  readonly decision: 'allow' | 'deny';
  readonly by: 'visibility' | 'policy' | 'approver' | 'default' | 'budget';
  readonly rule: string;
};

/** The loop's side of a tool execution: how the pipeline records what it does. */
export interface ToolCallRecorder {
  policy(callId: string, tool: string, decision: PolicyDecision): void;
  /**
   * Records (and, for STATEFUL and CRITICAL tools, durably persists) that an
   * execution is about to start. Rejects (or throws) if it could not be
   * persisted: the tool must then not run. A recorder with nothing to wait for
   * (no write-ahead) may return at once instead of a promise.
   */
  started(entry: { callId: string; name: string; args: unknown; sideEffect: SideEffect; attempt: number; idempotencyKey?: string }): Promise<void> | void;
  /**
   * Settles once everything recorded so far — the step that made the call among
   * it — is stored; rejects if the store refused it. Asked before a human is put
   * the call: one the store will not hold never runs, so no one should decide it.
   * A recorder that stores as it records may leave it out.
   */
  stored?(): Promise<void> | void;
  /** Has an execution of this call id already started (in this process or before a crash)? For a call other calls repeat: of it or of any of them. */
  alreadyStarted(callId: string): boolean;
  /** What is known of an earlier call, in one line for the model (its arguments and result so far). */
  describe?(callId: string): string;
}

export interface ApprovalRequest {
  readonly callId: string;
  readonly tool: string;
  readonly args: unknown;
  readonly sideEffect: SideEffect;
  readonly reason: string;
}

/** A human (or a stand-in) asked before a tool runs. Optional: without one the configured default applies. */
export interface Approver {
  approve(request: ApprovalRequest, signal: AbortSignal): Promise<'approve' | 'deny'>;
}

export interface ToolExecutionContext {
  readonly signal: AbortSignal;
  readonly clock: Clock;
  readonly recorder: ToolCallRecorder;
  /** Span parent for tool and policy spans. */
  readonly trace?: import('../trace/tracer.ts').SpanHandle;
  /**
   * Set when the model repeated the id of an earlier call of the conversation
   * (the loop gave this call a fresh id): that call's id. The repeat keeps that
   * call's idempotency key, and a STATEFUL or CRITICAL repeat is not run once
   * that call — or another repeat of it — started (`ALREADY_STARTED`).
   */
  readonly repeatOf?: string;
  /**
   * The conversation the call belongs to, when the host names it. Call ids are
   * unique only within a conversation: the idempotency key is
   * `<conversation>/<tool>:<call id>`, and a pipeline shared by conversations
   * keeps their calls apart.
   */
  readonly conversation?: string;
}

/** The pipeline as the loop sees it. `execute` never rejects. */
export interface ToolExecutor {
  /** Tools the model may see now (after visibility layers), as provider specs. */
  specs(): readonly ToolSpec[];
  /** Is the call's tool parallel-safe? Unknown tools count as not. */
  parallelSafe(name: string): boolean;
  execute(call: ToolCall, ctx: ToolExecutionContext): Promise<SettledToolCall>;
  /**
   * Optional: `execute`, but settled at once (not a promise) when nothing in the
   * call waits. Never throws; a promise it returns never rejects. The loop uses it
   * when present.
   */
  executeNow?(call: ToolCall, ctx: ToolExecutionContext): SettledToolCall | Promise<SettledToolCall>;
}
