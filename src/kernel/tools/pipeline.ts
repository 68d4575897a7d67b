/**
 * The tool pipeline (seed 000 §5): every call goes through the same three stages,
 * so permission, timeout, retry, truncation and redaction are written once for all
 * tools.
 *
 * - before: the tool must exist and be visible; lenient parse, strict validation,
 *   frozen arguments; policy (allow / deny / ask an approver).
 * - around: the write-ahead `started` record, then the run racing its timeout and
 *   the abort signal; retries as the side-effect level permits.
 * - after: output checked, rendered, redacted, truncated, normalized.
 *
 * Built only from a consistent configuration: every tool name a policy rule or
 * visibility layer gives must name a registered tool (tool-names.ts).
 *
 * `execute` never rejects and always settles (invariant 12). A STATEFUL or CRITICAL
 * call is never executed twice for one call id (invariant 13): it is not retried,
 * and a call id the recorder (or this executor) has seen start is settled
 * `unknown` instead of run.
 *
 * How each way a call can end is reported (status / error_code / attempts):
 * - not registered or hidden → failed / TOOL_NOT_AVAILABLE / 0 (recorded as a visibility deny)
 * - arguments unparseable or invalid → failed / INVALID_ARGUMENTS / 0
 * - denied by a rule, the approver or the no-approver default → failed / DENIED / 0
 * - cancelled before running (also while waiting for approval) → failed / CANCELLED / 0
 * - STATEFUL or CRITICAL call id already started → unknown / ALREADY_STARTED / 0; also
 *   a repeat (the model reused an earlier call's id, ctx.repeatOf) of a call that
 *   started: told what is known of that call, and not run
 * - arguments nested deeper than MAX_ARGUMENT_DEPTH → failed / INVALID_ARGUMENTS / 0
 * - an approver was to be asked, and the store refused the records holding the call
 *   (the recorder's `stored`, awaited first) → failed / NOT_RECORDED / 0, no one asked
 * - the `started` record could not be written → failed / NOT_RECORDED, tool not run.
 *   Not rethrown (execute never rejects); the loop sees the code and can end the
 *   turn with a persistence failure.
 * - timed out → unknown / TIMEOUT; aborted while running → unknown / INTERRUPTED
 * - threw a ToolFailure → failed / its code; threw anything else → failed / TOOL_ERROR
 * - returned output not matching its schema or not JSON → failed / INVALID_OUTPUT
 * - a bug in the pipeline or a throwing recorder → INTERNAL_ERROR, unknown if an
 *   execution had started, failed otherwise.
 *
 * Stage order, one deliberate choice: the ledger check comes first, before
 * visibility and policy. A call that already started may have run; reporting it
 * as "not available" or "denied" because configuration changed since would tell
 * the model it never ran — the field failure "interrupted tool reported as denied".
 */
import { resumeTime, suspendTime } from '../clock.ts';
import type { ToolCall, ToolResultStatus, ToolSpec } from '../model/client.ts';
import { createRedactor, type Redactor } from '../redact/index.ts';
import { MAX_TIMEOUT_MS, TIMEOUT_TOO_LONG } from '../timer-wheel.ts';
import { Deferred, type SpanAttributes, type SpanHandle, type SpanStatus } from '../trace/tracer.ts';
import { toFrozenLoggable } from '../log/plain-data.ts';
import { afterReturn } from './after.ts';
import { MAX_ARGUMENT_DEPTH, nestedDeeperThan } from './argument-depth.ts';
import { lenientParse } from './lenient-parse.ts';
import { checkPolicy, decideNow, fixedDecision, openPolicySpan, reportDecision, type PolicyOutcome, type ToolPolicy } from './policy.ts';
import type { ToolRegistry } from './registry.ts';
import { asToolFailure, DEFAULT_MAX_RETRIES, maxAttempts, wantsRetry } from './retry-policy.ts';
import { runAttempt, type AttemptOutcome } from './run-attempt.ts';
import { renderError, toolErrors } from './tool-errors.ts';
import { checkToolNames } from './tool-names.ts';
import { truncateForModel } from './truncate.ts';
import type { AnyToolDeclaration, Approver, SettledToolCall, ToolError, ToolExecutionContext, ToolExecutor } from './types.ts';
import { validateArgs } from './validate.ts';
import { resolveVisibility, type Visibility, type VisibilityLayer } from './visibility.ts';

export interface ToolExecutorOptions {
  readonly registry: ToolRegistry;
  /** Applied in order (global → mode → sub-agent); see visibility.ts. Default: everything visible. */
  readonly visibility?: readonly VisibilityLayer[];
  /** Default: every call allowed. */
  readonly policy?: ToolPolicy;
  /** Asked when a rule says `ask`. Optional: without one, `policy.onAskWithoutApprover` (deny) applies. */
  readonly approver?: Approver;
  /** Applied to the model's text, the logged output, arguments in records and spans, and error messages. Default: common credential patterns. */
  readonly redact?: Redactor;
  /** Longest text the model reads for one result. Default 20 000. */
  readonly maxOutputChars?: number;
  /** For tools that declare no `timeoutMs`. Default 60 000. */
  readonly defaultTimeoutMs?: number;
  /** For NONE and IDEMPOTENT tools that declare no `maxRetries`. Default 2. */
  readonly defaultMaxRetries?: number;
  /** Wait before retry n: `retryBackoffMs * 2^(n-1)` on the context's clock. Default 0. */
  readonly retryBackoffMs?: number;
}

export const DEFAULT_MAX_OUTPUT_CHARS = 20_000;
export const DEFAULT_TIMEOUT_MS = 60_000;
/** Longest argument text put on a span. */
const SPAN_ARGS_CHARS = 2_000;

const STATEFUL_LEVELS = new Set(['STATEFUL', 'CRITICAL']);

export function createToolExecutor(options: ToolExecutorOptions): ToolExecutor {
  return new Pipeline(options);
}

/** Per-call bookkeeping shared by the stages. */
interface CallState {
  readonly call: ToolCall;
  readonly ctx: ToolExecutionContext;
  readonly startedAt: number;
  readonly span: SpanHandle | undefined;
  attempts: number;
  // Set by the around stage:
  stateful: boolean;
  limit: number;
  timeoutMs: number;
  idempotencyKey: string;
}

type Settling = SettledToolCall | Promise<SettledToolCall>;

class Pipeline implements ToolExecutor {
  readonly #registry: ToolRegistry;
  readonly #visibility: Visibility;
  readonly #specs: readonly ToolSpec[];
  readonly #policy: ToolPolicy;
  /** The policy's answer for every call, when it has no rules to weigh. */
  readonly #fixedDecision: PolicyOutcome | undefined;
  readonly #approver: Approver | undefined;
  readonly #redact: Redactor;
  readonly #maxOutputChars: number;
  readonly #defaultTimeoutMs: number;
  readonly #defaultMaxRetries: number;
  readonly #retryBackoffMs: number;
  /**
   * STATEFUL and CRITICAL calls this executor is starting, by conversation and
   * call id: a second guard next to the recorder's ledger, which covers two
   * concurrent `execute` calls with one id (both could pass `alreadyStarted`
   * before either records its start). A claim is released once the recorder's
   * ledger knows the start, so a pipeline shared by many conversations keeps
   * nothing per finished call, and one conversation's `call_0` never blocks
   * another's.
   */
  readonly #claimed = new Set<string>();
  /**
   * Claims whose start record is on its way to the store, by the same key: settled
   * once the recorder took it or refused it. A repeat of the call (or the same id)
   * checked meanwhile waits for it: refused, that start never happened, and the
   * repeat was otherwise refused ALREADY_STARTED though nothing ran (fuzz, seed 1,
   * run 3689 of 4000: a call sent twice in one answer, run side by side).
   */
  readonly #recording = new Map<string, Promise<void>>();
  /**
   * Starts this executor saw the store refuse (nothing ran), by the same key, while
   * the recorder's ledger still counts the refused record as a start — it takes it
   * back only once the loop records the call's result, after the batch. A repeat
   * checked before then is not refused for it. Dropped once a start of the chain is
   * recorded, or the ledger no longer counts it.
   */
  readonly #refused = new Set<string>();

  constructor(options: ToolExecutorOptions) {
    this.#registry = options.registry;
    this.#visibility = resolveVisibility(options.registry.names(), options.visibility ?? []);
    this.#specs = Object.freeze(this.#visibility.visible.map((name) => options.registry.get(name)!.spec));
    this.#policy = options.policy ?? {};
    checkPolicy(this.#policy);
    // Fail closed: a rule or layer naming no registered tool would silently deny (or allow) nothing.
    checkToolNames(options.registry.names(), this.#policy, options.visibility ?? []);
    this.#fixedDecision = fixedDecision(this.#policy);
    this.#approver = options.approver;
    this.#redact = options.redact ?? createRedactor();
    this.#maxOutputChars = positive(options.maxOutputChars, DEFAULT_MAX_OUTPUT_CHARS, 'maxOutputChars');
    this.#defaultTimeoutMs = withinTimer(positive(options.defaultTimeoutMs, DEFAULT_TIMEOUT_MS, 'defaultTimeoutMs'), 'defaultTimeoutMs');
    this.#defaultMaxRetries = nonNegativeInteger(options.defaultMaxRetries, DEFAULT_MAX_RETRIES, 'defaultMaxRetries');
    this.#retryBackoffMs = withinTimer(nonNegative(options.retryBackoffMs, 0, 'retryBackoffMs'), 'retryBackoffMs');
  }

  specs(): readonly ToolSpec[] {
    return this.#specs;
  }

  parallelSafe(name: string): boolean {
    return this.#visibility.isVisible(name) && this.#registry.get(name)?.declaration.parallelSafe === true;
  }

  execute(call: ToolCall, ctx: ToolExecutionContext): Promise<SettledToolCall> {
    return Promise.resolve(this.executeNow(call, ctx));
  }

  /**
   * `execute`, settled at once when nothing in the call waits — no approver asked,
   * no write-ahead record persisted, a tool that returns synchronously, no retry
   * backoff: the common call costs no promise. Never throws; a promise it returns
   * never rejects.
   */
  executeNow(call: ToolCall, ctx: ToolExecutionContext): Settling {
    const registered = this.#registry.get(call.name);
    const state: CallState = {
      call,
      ctx,
      startedAt: safeNow(ctx),
      span: this.#toolSpan(call, ctx, registered?.declaration),
      attempts: 0,
      stateful: false,
      limit: 0,
      timeoutMs: 0,
      idempotencyKey: '',
    };
    let settled: Settling;
    try {
      settled = this.#stages(state, registered?.declaration);
    } catch (error) {
      settled = this.#internalError(state, error);
    }
    if (settled instanceof Promise) {
      return settled.then(
        (s) => this.#finish(state, s),
        (error: unknown) => this.#finish(state, this.#internalError(state, error)),
      );
    }
    return this.#finish(state, settled);
  }

  #toolSpan(call: ToolCall, ctx: ToolExecutionContext, declaration: AnyToolDeclaration | undefined): SpanHandle | undefined {
    try {
      return ctx.trace?.child('tool', call.name, { tool: call.name, callId: call.id, sideEffect: declaration?.sideEffect ?? 'unknown' });
    } catch {
      return undefined;
    }
  }

  /** A throwing recorder or a bug here: still settle, and say "may have run" if it might have. */
  #internalError(state: CallState, error: unknown): SettledToolCall {
    const mayHaveRun = state.attempts > 0;
    return this.#settleError(state, mayHaveRun ? 'unknown' : 'failed', toolErrors.internal(state.call.name, describe(error), mayHaveRun));
  }

  #finish(state: CallState, settled: SettledToolCall): SettledToolCall {
    const span = state.span;
    if (span) {
      try {
        span.end(spanStatus(settled), settledAttributes(settled));
      } catch {
        // Dev-mode trace misuse: recorded by the tracer; the call still settles.
      }
    }
    return settled;
  }

  #stages(state: CallState, declaration: AnyToolDeclaration | undefined): Settling {
    const { call, ctx } = state;

    // Ledger first (see the file comment): a started STATEFUL/CRITICAL call, or a
    // started call of a tool no longer declared, is settled unknown and not run —
    // also when the model repeats the id of one that started.
    if (!declaration || STATEFUL_LEVELS.has(declaration.sideEffect)) {
      const recording = this.#startOnItsWay(call, ctx);
      if (recording) return recording.then(() => this.#stages(state, declaration));
      if (this.#hasStarted(call.id, ctx)) {
        return this.#settleError(state, 'unknown', toolErrors.alreadyStarted(call.name, call.id, declaration?.sideEffect));
      }
      const repeated = this.#repeatOfStarted(call, ctx, declaration);
      if (repeated) return this.#settleError(state, 'unknown', repeated);
    }
    if (ctx.signal.aborted) return this.#settleError(state, 'failed', toolErrors.cancelled(call.name, 'before the tool ran'));

    // Before: exists and visible.
    if (!declaration || !this.#visibility.isVisible(call.name)) {
      const hidden = this.#visibility.explain(call.name);
      const rule = !declaration
        ? 'not_registered'
        : hidden
          ? `${hidden.layer}:${hidden.reason === 'denied' ? `deny ${hidden.rule}` : 'not in allow list'}`
          : 'hidden';
      const policySpan = safely(() => openPolicySpan(state.span, { callId: call.id, tool: call.name }));
      reportDecision(ctx.recorder, policySpan, { callId: call.id, tool: call.name }, { decision: 'deny', by: 'visibility', rule });
      return this.#settleError(state, 'failed', toolErrors.notAvailable(call.name, this.#visibility.visible));
    }

    // Before: lenient parse, then strict validation (frozen on success).
    const parsed = lenientParse(call.args, call.rawArgs);
    if (!parsed.ok) return this.#settleError(state, 'failed', toolErrors.unparseable(call.name, parsed.reason, parsed.raw));
    const input = parsed.value;
    // One level deep, the common case (`isFlatObject` walks no deeper than the top level).
    const flat = isFlatObject(input);
    // Before any recursive walk (validation, copying, freezing) sees them. Flat arguments are one level deep.
    if (!flat && nestedDeeperThan(input)) return this.#settleError(state, 'failed', toolErrors.tooDeep(call.name, MAX_ARGUMENT_DEPTH));
    // The schema's output is frozen, so it must not be the model's object: parsed
    // from a copy — or, for flat arguments (no nested objects, the common case),
    // from the original, copied only if the schema hands it back as it is.
    const validated = flat ? validateArgs(call.name, declaration.input, input, cloneArgs) : validateArgs(call.name, declaration.input, cloneArgs(input));
    if (!validated.ok) return this.#settleError(state, 'failed', validated.error);
    const args = validated.args;
    const loggedArgs = this.#loggable(args);
    if (state.span) {
      try {
        state.span.setAttributes({ args: new Deferred(() => truncateForModel(JSON.stringify(loggedArgs) ?? '', SPAN_ARGS_CHARS).content) });
      } catch {
        // as above
      }
    }

    // Before: policy and approval.
    let policySpan: SpanHandle | undefined;
    try {
      policySpan = openPolicySpan(state.span, { callId: call.id, tool: call.name });
    } catch {
      policySpan = undefined;
    }
    const decision = this.#fixedDecision ?? this.#decide(ctx, call, declaration, args, loggedArgs);
    if (decision instanceof Promise) return decision.then((d) => this.#decided(state, declaration, args, loggedArgs, policySpan, d));
    return this.#decided(state, declaration, args, loggedArgs, policySpan, decision);
  }

  /** The policy (and approver) asked: their own work on the real clock, whatever holds the kernel's timestamp (clock.ts). */
  #decide(
    ctx: ToolExecutionContext,
    call: ToolCall,
    declaration: AnyToolDeclaration,
    args: unknown,
    loggedArgs: unknown,
  ): PolicyOutcome | Promise<PolicyOutcome> {
    const held = suspendTime();
    try {
      return decideNow({
        policy: this.#policy,
        approver: this.#approver,
        clock: ctx.clock,
        signal: ctx.signal,
        request: { callId: call.id, tool: call.name, args: loggedArgs, sideEffect: declaration.sideEffect },
        args,
        beforeAsking: ctx.recorder.stored ? () => ctx.recorder.stored!() : undefined,
      });
    } finally {
      resumeTime(held);
    }
  }

  #decided(
    state: CallState,
    declaration: AnyToolDeclaration,
    args: unknown,
    loggedArgs: unknown,
    policySpan: SpanHandle | undefined,
    decision: PolicyOutcome,
  ): Settling {
    const { call, ctx } = state;
    if (decision.notRecorded !== undefined) {
      // Nothing was decided: the store refused the records that hold the call, so no one was asked and it never runs.
      try {
        policySpan?.end('error', { decision: 'none', by: 'default', rule: 'not_recorded' });
      } catch {
        // a broken span changes nothing about the call
      }
      return this.#settleError(state, 'failed', toolErrors.callNotRecorded(call.name, this.#redact(describe(decision.notRecorded))));
    }
    reportDecision(ctx.recorder, policySpan, { callId: call.id, tool: call.name }, decision);
    if (decision.decision === 'deny') {
      // Cancelled while waiting for the approver: the record says deny/cancelled, the
      // model is told the truth — it did not run because the turn was cancelled.
      if (decision.cancelled) return this.#settleError(state, 'failed', toolErrors.cancelled(call.name, 'while waiting for approval'));
      return this.#settleError(state, 'failed', toolErrors.denied(call.name, decision.by, decision.rule, decision.reason));
    }

    // Around: started record, run, retry as the side-effect level allows; then after.
    state.stateful = STATEFUL_LEVELS.has(declaration.sideEffect);
    state.limit = maxAttempts(declaration, this.#defaultMaxRetries);
    state.timeoutMs = declaration.timeoutMs ?? this.#defaultTimeoutMs;
    // A repeat keeps the key of the call it repeats: the backend sees one request.
    // Call ids are unique within a conversation only: the key names it.
    state.idempotencyKey = `${ctx.conversation !== undefined ? `${ctx.conversation}/` : ''}${call.name}:${ctx.repeatOf ?? call.id}`;
    return this.#attempt(state, declaration, args, loggedArgs, 1, undefined);
  }

  /** One attempt: the start record (awaited only when the recorder persists it), then the run. */
  #attempt(
    state: CallState,
    declaration: AnyToolDeclaration,
    args: unknown,
    loggedArgs: unknown,
    attempt: number,
    last: SettledToolCall | undefined,
  ): Settling {
    const { call, ctx } = state;
    if (ctx.signal.aborted) return last ?? this.#settleError(state, 'failed', toolErrors.cancelled(call.name, 'before the tool ran'));
    if (state.stateful) {
      // Checked again right before the start record, after any wait for approval.
      const recording = this.#startOnItsWay(call, ctx);
      if (recording) return recording.then(() => this.#attempt(state, declaration, args, loggedArgs, attempt, last));
      if (this.#hasStarted(call.id, ctx)) return this.#settleError(state, 'unknown', toolErrors.alreadyStarted(call.name, call.id, declaration.sideEffect));
      const repeated = this.#repeatOfStarted(call, ctx, declaration);
      if (repeated) return this.#settleError(state, 'unknown', repeated);
      this.#claimed.add(claimKey(ctx, call.id));
      if (ctx.repeatOf !== undefined) this.#claimed.add(claimKey(ctx, ctx.repeatOf));
    }
    let recorded: unknown;
    try {
      recorded = ctx.recorder.started({
        callId: call.id,
        name: call.name,
        args: loggedArgs,
        sideEffect: declaration.sideEffect,
        attempt,
        idempotencyKey: state.idempotencyKey,
      });
    } catch (error) {
      return this.#notRecorded(state, error, last);
    }
    if (isThenable(recorded)) {
      const keys = state.stateful ? this.#claimKeys(call, ctx) : [];
      const { promise, resolve } = Promise.withResolvers<void>();
      for (const key of keys) this.#recording.set(key, promise);
      // Whichever way it went, once the claims say so (kept or released): then a waiting repeat checks again.
      const settled = () => {
        for (const key of keys) if (this.#recording.get(key) === promise) this.#recording.delete(key);
        resolve();
      };
      // Released even if what follows throws: a waiting copy must never wait for good.
      return Promise.resolve(recorded).then(
        () => {
          try {
            return this.#run(state, declaration, args, loggedArgs, attempt, last);
          } finally {
            settled();
          }
        },
        (error: unknown) => {
          try {
            return this.#notRecorded(state, error, last);
          } finally {
            settled();
          }
        },
      );
    }
    return this.#run(state, declaration, args, loggedArgs, attempt, last);
  }

  /**
   * Not recorded, so not run: an execution the log does not know about could be
   * repeated after a crash. Released, since this attempt certainly did not run.
   * The claim on the first call of a repeat's chain too, whatever the ledger says
   * now: it still counts this refused start as a start of the chain (the log takes
   * it back only when the result is recorded), and where the chain did start the
   * ledger goes on answering for it. Kept, the claim outlived that taking back and
   * refused every later repeat ALREADY_STARTED, though nothing ran.
   */
  #notRecorded(state: CallState, error: unknown, last: SettledToolCall | undefined): SettledToolCall {
    const { call, ctx } = state;
    if (state.stateful) {
      this.#claimed.delete(claimKey(ctx, call.id));
      if (ctx.repeatOf !== undefined) this.#claimed.delete(claimKey(ctx, ctx.repeatOf));
      if (state.attempts === 0) for (const key of this.#claimKeys(call, ctx)) this.#refused.add(key);
    }
    return this.#settleError(
      state,
      last?.status === 'unknown' ? 'unknown' : 'failed',
      toolErrors.notRecorded(call.name, this.#redact(describe(error)), state.attempts > 0),
    );
  }

  #run(state: CallState, declaration: AnyToolDeclaration, args: unknown, loggedArgs: unknown, attempt: number, last: SettledToolCall | undefined): Settling {
    const { call, ctx } = state;
    if (state.stateful) {
      // A start of the chain is recorded (however the recorder answered): no refused start speaks for it any more.
      for (const key of this.#claimKeys(call, ctx)) this.#refused.delete(key);
      this.#releaseRecorded(call, ctx);
    }
    if (ctx.signal.aborted) return last ?? this.#settleError(state, 'failed', toolErrors.cancelled(call.name, 'before the tool ran'));
    state.attempts++;
    const outcome = runAttempt({
      declaration,
      args,
      clock: ctx.clock,
      signal: ctx.signal,
      timeoutMs: state.timeoutMs,
      callId: call.id,
      attempt,
      idempotencyKey: state.idempotencyKey,
      traceparent: state.span?.traceparent,
    });
    if (outcome instanceof Promise) return outcome.then((o) => this.#attempted(state, declaration, args, loggedArgs, attempt, o));
    return this.#attempted(state, declaration, args, loggedArgs, attempt, outcome);
  }

  /** After an attempt: settled, or another attempt (after its backoff) as the side-effect level allows. */
  #attempted(state: CallState, declaration: AnyToolDeclaration, args: unknown, loggedArgs: unknown, attempt: number, outcome: AttemptOutcome): Settling {
    const last = this.#settleAttempt(state, declaration, outcome, state.timeoutMs);
    if (attempt >= state.limit || !wantsRetry(outcome, declaration.sideEffect)) return last;
    const next = () => this.#attempt(state, declaration, args, loggedArgs, attempt + 1, last);
    // Doubled past what a timer can hold, a wait would fire at once: held to the limit.
    const backoff = this.#retryBackoffMs === 0 ? 0 : Math.min(this.#retryBackoffMs * 2 ** (attempt - 1), MAX_TIMEOUT_MS);
    if (backoff > 0) return state.ctx.clock.sleep(backoff, state.ctx.signal).then(next);
    return next();
  }

  #settleAttempt(state: CallState, declaration: AnyToolDeclaration, outcome: AttemptOutcome, timeoutMs: number): SettledToolCall {
    const name = state.call.name;
    switch (outcome.kind) {
      case 'returned': {
        const after = afterReturn(declaration, outcome.value, this.#redact, this.#maxOutputChars);
        if (!after.ok) return this.#settleError(state, 'failed', after.error);
        return this.#settle(state, 'ok', after.content, after.output, undefined, after.truncatedFrom);
      }
      case 'timeout':
        return this.#settleError(state, 'unknown', toolErrors.timeout(name, timeoutMs, state.attempts));
      case 'aborted':
        return this.#settleError(state, 'unknown', toolErrors.interrupted(name));
      case 'threw': {
        const failure = asToolFailure(outcome.error);
        if (failure) {
          const suggestion = failure.suggestion || 'Check the arguments, or try a different approach.';
          return this.#settleError(state, 'failed', toolErrors.failed(name, failure.code, failure.message, suggestion));
        }
        return this.#settleError(state, 'failed', toolErrors.toolError(name, describe(outcome.error), state.attempts, declaration.sideEffect));
      }
    }
  }

  #claimKeys(call: ToolCall, ctx: ToolExecutionContext): string[] {
    return ctx.repeatOf !== undefined ? [claimKey(ctx, call.id), claimKey(ctx, ctx.repeatOf)] : [claimKey(ctx, call.id)];
  }

  /** The start record on its way for this call's id or the call it repeats, if any (see `#recording`). */
  #startOnItsWay(call: ToolCall, ctx: ToolExecutionContext): Promise<void> | undefined {
    return this.#recording.get(claimKey(ctx, call.id)) ?? (ctx.repeatOf !== undefined ? this.#recording.get(claimKey(ctx, ctx.repeatOf)) : undefined);
  }

  #hasStarted(callId: string, ctx: ToolExecutionContext): boolean {
    const key = claimKey(ctx, callId);
    if (this.#claimed.has(key)) return true;
    if (!ctx.recorder.alreadyStarted(callId)) {
      this.#refused.delete(key);
      return false;
    }
    return !this.#refused.has(key);
  }

  /** Claims the recorder's ledger now answers for (its start is recorded) are dropped; a recorder that keeps no ledger keeps them. */
  #releaseRecorded(call: ToolCall, ctx: ToolExecutionContext): void {
    for (const id of ctx.repeatOf !== undefined ? [call.id, ctx.repeatOf] : [call.id])
      if (safely(() => ctx.recorder.alreadyStarted(id)) === true) this.#claimed.delete(claimKey(ctx, id));
  }

  /** For a repeated call id whose first call (or another repeat of it) started: the error the repeat settles with. */
  #repeatOfStarted(call: ToolCall, ctx: ToolExecutionContext, declaration: AnyToolDeclaration | undefined): ToolError | undefined {
    const first = ctx.repeatOf;
    if (first === undefined || !this.#hasStarted(first, ctx)) return undefined;
    const known = safely(() => ctx.recorder.describe?.(first)) ?? 'it started; its result is not known here.';
    return toolErrors.repeated(call.name, call.id, first, declaration?.sideEffect, known);
  }

  /** Arguments as records and spans may keep them: plain JSON, secrets redacted. */
  #loggable(args: unknown): unknown {
    // Frozen, so the log keeps it without a copy and the span can render it when the trace is read.
    const logged = toFrozenLoggable(args, this.#redact);
    return logged.ok ? (logged.value ?? Object.freeze({})) : `[arguments not JSON data: ${logged.reason}]`;
  }

  #settleError(state: CallState, status: Exclude<ToolResultStatus, 'ok'>, error: ToolError): SettledToolCall {
    const redacted: ToolError = {
      failed_tool: error.failed_tool,
      error_code: error.error_code,
      // Half the budget, so the rendered error is rarely cut again as a whole.
      error_message: truncateForModel(this.#redact(error.error_message), Math.max(1, Math.floor(this.#maxOutputChars / 2))).content,
      suggestion: this.#redact(error.suggestion),
    };
    const { content, truncatedFrom } = truncateForModel(renderError(redacted), this.#maxOutputChars);
    return this.#settle(state, status, content, undefined, redacted, truncatedFrom);
  }

  #settle(
    state: CallState,
    status: ToolResultStatus,
    content: string,
    output: unknown,
    error: ToolError | undefined,
    truncatedFrom: number | undefined,
  ): SettledToolCall {
    // Optional fields are omitted, never undefined: the log takes plain JSON only. Keys in this order:
    // callId, name, status, content, output, error, truncatedFrom, durationMs, attempts.
    const callId = state.call.id;
    const name = state.call.name;
    const durationMs = Math.max(0, safeNow(state.ctx) - state.startedAt);
    const attempts = state.attempts;
    // The common shapes as one literal each; the rest field by field.
    if (truncatedFrom === undefined) {
      if (error === undefined) {
        return output !== undefined ? { callId, name, status, content, output, durationMs, attempts } : { callId, name, status, content, durationMs, attempts };
      }
      if (output === undefined) return { callId, name, status, content, error, durationMs, attempts };
    }
    const settled: { -readonly [K in keyof SettledToolCall]?: SettledToolCall[K] } = { callId, name, status, content };
    if (output !== undefined) settled.output = output;
    if (error !== undefined) settled.error = error;
    if (truncatedFrom !== undefined) settled.truncatedFrom = truncatedFrom;
    settled.durationMs = durationMs;
    settled.attempts = attempts;
    return settled as SettledToolCall;
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';
}

function spanStatus(settled: SettledToolCall): SpanStatus {
  if (settled.status === 'ok') return 'ok';
  const code = settled.error?.error_code;
  return code === 'INTERRUPTED' || code === 'CANCELLED' ? 'cancelled' : 'error';
}

/**
 * The pipeline's own copy of the model's arguments, so freezing the validated
 * value never freezes an object the caller still holds (zod passes `unknown`
 * fields through by reference).
 */
function cloneArgs(value: unknown): unknown {
  const plain = clonePlain(value, []);
  if (plain !== NOT_PLAIN) return plain;
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
}

const NOT_PLAIN = Symbol('not plain');

/** A plain object whose own values are all primitives (and no `__proto__` key): a schema's output can share nothing with it but itself. */
function isFlatObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (key === '__proto__') return false;
    const v = (value as Record<string, unknown>)[key];
    if (v !== null && (typeof v === 'object' || typeof v === 'function')) return false;
  }
  return true;
}

/**
 * What `structuredClone` returns for JSON-shaped data — plain objects, dense plain
 * arrays, primitives — built directly, several times faster (this runs for every
 * call). Anything else (class instances, sparse arrays, functions, an object
 * reached twice, a `__proto__` key) answers NOT_PLAIN and goes to structuredClone.
 */
function clonePlain(value: unknown, seen: object[]): unknown {
  if (typeof value === 'function' || typeof value === 'symbol') return NOT_PLAIN;
  if (typeof value !== 'object' || value === null) return value;
  if (seen.includes(value)) return NOT_PLAIN; // shared or cyclic: structuredClone keeps the sharing
  seen.push(value);
  const proto = Object.getPrototypeOf(value);
  if (proto === Array.prototype) {
    const array = value as unknown[];
    if (Object.keys(array).length !== array.length) return NOT_PLAIN;
    const out = new Array<unknown>(array.length);
    for (let i = 0; i < array.length; i++) {
      const v = clonePlain(array[i], seen);
      if (v === NOT_PLAIN) return NOT_PLAIN;
      out[i] = v;
    }
    return out;
  }
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (key === '__proto__') return NOT_PLAIN;
    const v = clonePlain((value as Record<string, unknown>)[key], seen);
    if (v === NOT_PLAIN) return NOT_PLAIN;
    out[key] = v;
  }
  return out;
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  // A plain object thrown with a message (an HTTP client's `{ message, config, response }`): its message alone.
  const message = typeof error === 'object' && error !== null ? (error as { message?: unknown }).message : undefined;
  if (typeof message === 'string' && message !== '') return message;
  return String(error);
}

function safeNow(ctx: ToolExecutionContext): number {
  try {
    return ctx.clock.now();
  } catch {
    return 0;
  }
}

/** Trace calls may throw in dev mode (lifecycle misuse is recorded first); a tool call must still settle. */
function safely<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(Number.isFinite(value) && value > 0)) throw new Error(`tool executor option ${name} must be a positive number (got ${String(value)})`);
  return value;
}

function nonNegative(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(Number.isFinite(value) && value >= 0)) throw new Error(`tool executor option ${name} must be a non-negative number (got ${String(value)})`);
  return value;
}

/** A wait a timer can hold: a longer one would fire at once. */
function withinTimer(value: number, name: string): number {
  if (value > MAX_TIMEOUT_MS) throw new Error(`tool executor option ${name} ${TIMEOUT_TOO_LONG} (got ${value})`);
  return value;
}

function nonNegativeInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(Number.isInteger(value) && value >= 0)) throw new Error(`tool executor option ${name} must be a non-negative integer (got ${String(value)})`);
  return value;
}

/** A claim's key: call ids are unique within a conversation only. */
function claimKey(ctx: ToolExecutionContext, callId: string): string {
  return ctx.conversation === undefined ? callId : `${ctx.conversation}\u0000${callId}`;
}

/** The tool span's closing attributes (optional ones omitted): status, attempts, errorCode, truncatedFrom. */
function settledAttributes(settled: SettledToolCall): SpanAttributes {
  if (settled.error) {
    return settled.truncatedFrom !== undefined
      ? { status: settled.status, attempts: settled.attempts, errorCode: settled.error.error_code, truncatedFrom: settled.truncatedFrom }
      : { status: settled.status, attempts: settled.attempts, errorCode: settled.error.error_code };
  }
  return settled.truncatedFrom !== undefined
    ? { status: settled.status, attempts: settled.attempts, truncatedFrom: settled.truncatedFrom }
    : { status: settled.status, attempts: settled.attempts };
}
