/**
 * The loop runner (seed 000 §6; seed 004 rules 1–3): orchestration only.
 *
 * A turn is one delegation from the user, made of steps, each one model request.
 * The runner reads the log, asks the model, writes the log — it keeps no state of
 * its own that the log could not rebuild. How facts are written down lives
 * beside it: records.ts (the shape of each record), tool-journal.ts (the three
 * records of a tool call, the write-ahead, the results owed at close),
 * model-errors.ts (the error chain), compaction.ts, inbox.ts.
 *
 * States: IDLE (no turn) · CLAIMING (turn opened, taking input) · MODEL (a request
 * in flight) · RECOVERING (error chain: backoff or compaction) · TOOLS (calls
 * executing) · CHECKPOINT (pre-close hooks). The methods below are named for the
 * state they run. The transition table — every event × state, with the outcome or
 * next state, and a fixture per possible cell — is `state-tables/loop-table.ts`;
 * `loopgate tables --markdown` prints it with each cell's result.
 *
 * Every path out of a turn goes through `#closeTurn` in a `finally`: exactly one
 * `turn.closed` (invariant 4), every tool call given a result, taken messages the
 * model will not read in a kept history returned to the inbox (returns.ts,
 * invariant 9), side effects of a turn whose steps are not kept told to the next
 * turn (invariant 14), the trace ended. Nothing throws out of `drain` (invariant 12).
 */
import { holdTurn, type EventLog } from '../log/event-log.ts';
import type { LogEvent } from '../log/envelope.ts';
import type { PendingMessage } from '../log/positions.ts';
import type { ModelClient, ModelDelta, ModelRequest, ModelResult, ReplyResult, ToolSpec, ToolUseResult } from '../model/client.ts';
import { modelResultProblem } from '../model/result-shape.ts';
import { wellFormedResult } from '../model/well-formed-result.ts';
import { holdTime, releaseTime, resumeTime, suspendTime } from '../clock.ts';
import { InputError } from '../input-error.ts';
import { loneSurrogateAt } from '../well-formed.ts';
import { assertNever, keepsCompletedSteps, outcomeLabel, outcomeProblem, type CancelSource, type Outcome } from '../outcome.ts';
import { ProjectionCache, type ProjectionState } from '../projection/projection.ts';
import { streamRedactor } from '../redact/index.ts';
import { Tracer, type SpanHandle } from '../trace/tracer.ts';
import { answerAfterAbort, CancelScope, raceAbort } from './cancellation.ts';
import { applyCompaction } from './compaction.ts';
import { hasWakingWork, saysNothing, takeForNextStep, takeForTurnStart } from './inbox.ts';
import { BUILT_IN_HANDLERS, handleModelError, type ErrorContext, type ModelErrorResult } from './model-errors.ts';
import { PersistenceError, persistOrThrow } from './persistence-error.ts';
import { RetryAfterWindows, type WindowsState } from './retry-after-windows.ts';
import { SessionTokens, type SessionTokensState } from './session-tokens.ts';
import { DeltaStreams } from './delta-streams.ts';
import { addTokens, addUsageDetail, describeError, plainOutcome, shown, sideEffectNotice, turnUsage, type UsageDetail } from './records.ts';
import {
  appendAssistantMessage,
  appendInboxReceived,
  appendModelDelta,
  appendModelRequest,
  appendModelResult,
  appendTurnClosed,
  appendTurnOpened,
  appendUserMessage,
} from '../log/builders.ts';
import { recordPromptAndTools } from './request.ts';
import { requestWithMessages } from './request-messages.ts';
import { isLoopWritten, LOOP_SOURCE, messagesToReturn } from './returns.ts';
import { planStepCalls, type PlannedCall } from './step-calls.ts';
import { ToolJournal } from './tool-journal.ts';
import { WRITTEN, type ClaimDecision, type Durability, type LoopDeps, type SendOptions, type TurnResult } from './types.ts';
import type { SettledToolCall, ToolExecutionContext } from '../tools/types.ts';

/**
 * Waits for every promise of a batch, then rejects with the first rejection, if
 * any: a call that broke its contract ends the turn only once its siblings have
 * settled, so none of them runs on, or writes its result, after the close.
 */
async function allSettledOrFirstError(running: readonly Promise<void>[]): Promise<void> {
  const settled = await Promise.allSettled(running);
  for (const r of settled) if (r.status === 'rejected') throw r.reason;
}

/** The source of the side-effect notice the loop writes. */
const SIDE_EFFECT_NOTICE_SOURCE = `${LOOP_SOURCE}side-effects`;

/** Safety net for handlers that always retry: no step makes more requests than this. */
const MAX_ATTEMPTS_PER_STEP = 50;

interface TurnState {
  readonly turn: number;
  /** The store refused the messages this turn was to start on: it takes none of them and fails `persistence`. */
  readonly refused?: PersistenceError;
  readonly scope: CancelScope;
  readonly tracer: Tracer;
  readonly span: SpanHandle;
  readonly journal: ToolJournal;
  steps: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** Cache and reasoning tokens of the turn's model results, where a provider reported them. */
  usageDetail: UsageDetail;
  /** Inbox messages taken by the turn, in order; `seen` once the model completed a step after it was taken. */
  taken: { id: string; source: string; seen: boolean }[];
  reply: string | undefined;
  extensions: number;
}

/** What a state hands back: the turn goes on (to the next step), or it ends with an outcome. */
type Next = 'next_step' | Outcome;

/** The client a step starts with, or the outcome when every client is inside a retry-after window too long to wait. */
type ClientChoice = { readonly client: ModelClient } | { readonly outcome: Outcome };

/** A model request in flight: its span, its delta streams, and its answer (raced against cancel and timeout; never rejects). */
interface ModelCall {
  readonly client: ModelClient;
  readonly span: SpanHandle;
  readonly attempt: number;
  open: boolean;
  streams: DeltaStreams | undefined;
  answer: Promise<ModelResult>;
}

/** How a model step ended: with a result the turn acts on, or with an outcome (the error chain gave up, or a cancel). */
type StepResult = { readonly result: Exclude<ModelResult, ModelErrorResult> } | { readonly outcome: Outcome };

/** What the error chain decided for a failed attempt: give up with an outcome, or try again (with another client, or the same). */
type Recovery = { readonly outcome: Outcome } | { readonly retryWith: ModelClient | undefined };

export class AgentLoop {
  readonly #deps: LoopDeps;
  readonly #log: EventLog;
  readonly #projection: ProjectionCache;
  /** The tool specs last recorded, so an unchanged list is not compared again. */
  readonly #lastTools: { specs: readonly ToolSpec[] | undefined } = { specs: undefined };
  readonly #handlers;
  readonly #random: () => number;
  readonly #windows: RetryAfterWindows;
  readonly #tokens: SessionTokens;
  #running: Promise<TurnResult[]> | undefined;
  #turn: TurnState | undefined;
  #stopped: { by: CancelSource; reason: string } | undefined;

  constructor(deps: LoopDeps) {
    this.#deps = deps;
    this.#log = deps.log;
    this.#projection = new ProjectionCache(deps.log);
    this.#handlers = [...(deps.errorHandlers ?? []), ...BUILT_IN_HANDLERS];
    this.#random = deps.random ?? Math.random;
    this.#windows = new RetryAfterWindows(deps.log);
    this.#tokens = new SessionTokens(deps.log);
    // Redaction is the log's: whatever appends, no secret the redactor knows is stored.
    deps.log.redactWith(deps.redact);
  }

  /** The incremental projection the loop sends (for hosts, tests and the harness). */
  get projection(): ProjectionCache {
    return this.#projection;
  }

  /** The loop's incremental folds of the log as plain data, at the log's current length (for a snapshot: snapshot.ts). */
  derivedState(): { readonly projection: ProjectionState; readonly windows: WindowsState; readonly sessionTokens: SessionTokensState } {
    return { projection: this.#projection.state(), windows: this.#windows.state(), sessionTokens: this.#tokens.state() };
  }

  get busy(): boolean {
    return this.#running !== undefined;
  }

  /** Posts a message to the inbox. Returns its id. It is taken by `drain`. */
  send(text: string, options: SendOptions = {}): string {
    const lone = typeof text === 'string' ? loneSurrogateAt(text) : undefined;
    if (lone !== undefined)
      throw new InputError(`send: the text holds half a UTF-16 surrogate pair at offset ${lone}: no character, and a provider would refuse it`);
    const id = options.id ?? this.#freshId();
    // Secrets never reach the log (the log redacts), nor, therefore, the model.
    appendInboxReceived(this.#log, id, options.intent ?? 'follow_up', text, options.source ?? 'user');
    return id;
  }

  /**
   * An id `newId` gives that no message of the log holds: a caller's own id (`send(text, { id: 'm1' })`) may be one
   * `newId` gives later, and the log refuses a second message with it (outside probe 48, MED-1: the message was lost).
   */
  #freshId(): string {
    for (let tries = 0; tries < 1_000; tries++) {
      const id = this.#deps.newId();
      if (!this.#log.positions.message(id)) return id;
    }
    throw new Error('newId gave 1,000 ids in a row that messages of this log hold already');
  }

  /** Cancels the running turn; the first reason wins. Returns whether a turn was cancelled by this call. */
  cancel(by: CancelSource, reason = `cancelled by ${by}`): boolean {
    const turn = this.#turn;
    // A turn whose close is written has ended: nothing can cancel it any more (it is let go of just after).
    if (!turn || this.#log.positions.openTurn !== turn.turn || !turn.scope.cancel(by, reason)) return false;
    this.#recordCancel(by, this.#deps.redact(reason));
    return true;
  }

  /** Cancels the running turn and starts no new ones. */
  shutdown(reason = 'shutting down'): void {
    this.#stopped ??= { by: 'shutdown', reason };
    this.cancel('shutdown', reason);
  }

  /** Does the inbox hold work that would start a turn? */
  hasWork(): boolean {
    return hasWakingWork(this.#log.positions.pending());
  }

  /**
   * Runs turns while the inbox holds waking work (the loop stops when the inbox is
   * empty, not when the model stops asking for tools). Never rejects. A call made
   * while draining joins the running drain.
   */
  drain(): Promise<TurnResult[]> {
    if (this.#running) return this.#running;
    // `finally` runs in a later microtask, after `#running` is set, even when
    // there is nothing to do and the drain finishes at once.
    const run: Promise<TurnResult[]> = this.#drainTurns().finally(() => {
      if (this.#running === run) this.#running = undefined;
    });
    this.#running = run;
    return run;
  }

  async #drainTurns(): Promise<TurnResult[]> {
    const results: TurnResult[] = [];
    while (!this.#stopped && this.#log.positions.openTurn === undefined && this.hasWork()) {
      const starts = takeForTurnStart(this.#log.positions.pending());
      // A message posted after the last turn's last write (as it closed) is stored before a turn starts on it: a
      // turn must never run on a message the store then refuses. The drain's first turn starts on what its caller
      // stored; a refused write ends the drain, and the next one stores first too.
      let refused: PersistenceError | undefined;
      if (results.length > 0 && starts.some((m) => m.seq >= this.#log.flushedUpTo)) {
        try {
          await persistOrThrow(this.#deps.persist, 'barrier');
        } catch (error) {
          refused = error as PersistenceError;
        }
      }
      // Refused: the turn opens on nothing, takes nothing and fails `persistence` (the host reopens from its store).
      const result = await this.#runTurn(refused);
      results.push(result);
      if (result.outcome.kind === 'cancelled') break;
      // A turn takes what it starts with; if all of it is pending again (a claim that deferred it), another turn
      // would only repeat this one: stop rather than spin. A turn that used up any of it (a blank message dropped,
      // the loop's own notice handed back) made progress: what waits behind it gets its turn in this drain.
      const positions = this.#log.positions;
      if (starts.length > 0 && starts.every((m) => positions.inboxState(m.id) === 'pending')) break;
      if (result.outcome.kind === 'failed' && result.outcome.reason === 'persistence') break;
    }
    return results;
  }

  // ---------------------------------------------------------------------------
  // One turn: open, run the states until an outcome, close in `finally`
  // ---------------------------------------------------------------------------

  async #runTurn(refused?: PersistenceError): Promise<TurnResult> {
    const deps = this.#deps;
    const turn = this.#log.positions.nextTurn;
    let tracer: Tracer;
    try {
      tracer = deps.tracing.begin(turn);
    } catch {
      tracer = new Tracer({ clock: deps.clock, traceId: `turn-${turn}`, redact: deps.redact }); // a broken host tracer must not stop the turn
    }
    // A linked signal's cancel is recorded as `cancel` records one: only in the open turn. One already aborted
    // cancels the scope here, before the turn opens; `#claiming` records it once `turn.opened` is written.
    const scope = new CancelScope(deps.signals ? linkSignals(deps.signals) : [], ({ by, reason }) => {
      if (this.#log.positions.openTurn === turn) this.#recordCancel(by, deps.redact(reason));
    });
    const state: TurnState = {
      turn,
      scope,
      tracer,
      span: tracer.startSpan('turn', `turn ${turn}`, undefined, { turn }),
      journal: new ToolJournal(this.#log, turn, deps.persist),
      steps: 0,
      toolCalls: 0,
      inputTokens: 0,
      outputTokens: 0,
      usageDetail: {},
      taken: [],
      reply: undefined,
      extensions: 0,
      ...(refused ? { refused } : {}),
    };
    this.#turn = state;
    let outcome: Outcome = { kind: 'failed', reason: 'internal', detail: 'the turn ended without an outcome' };
    let returned: string[] = [];
    try {
      outcome = await this.#turnBody(state);
    } catch (error) {
      outcome =
        error instanceof PersistenceError
          ? { kind: 'failed', reason: 'persistence', detail: error.message }
          : { kind: 'failed', reason: 'internal', detail: describeError(error) };
    } finally {
      ({ outcome, returned } = await this.#closeTurn(state, outcome));
      this.#turn = undefined;
      scope.dispose();
    }
    state.span.end('ok', { outcome: outcomeLabel(outcome), steps: state.steps, toolCalls: state.toolCalls });
    let trace;
    try {
      trace = deps.tracing.finish(tracer, outcome);
    } catch {
      // Dev mode throws on a lifecycle violation (a span left open); the record is
      // complete all the same, and the loop never throws.
      trace = tracer.end();
    }
    // What the host returns passes the same redactor as what the log stores.
    return {
      turn,
      outcome: plainOutcome(outcome, deps.redact),
      ...(outcome.kind === 'replied' && state.reply !== undefined ? { reply: deps.redact(state.reply) } : {}),
      steps: state.steps,
      toolCalls: state.toolCalls,
      usage: turnUsage(state),
      returnedToInbox: returned,
      trace,
    };
  }

  /** The transitions of one turn: CLAIMING, then MODEL steps (each may go through RECOVERING, TOOLS and CHECKPOINT). */
  async #turnBody(s: TurnState): Promise<Outcome> {
    const claimed = await this.#claiming(s);
    if (claimed !== 'next_step') return claimed;
    for (;;) {
      if (s.scope.cancelled) return this.#cancelled(s);
      // Steers and injects that arrived since the last step (or during the claim) join this one.
      this.#takeStepInput(s);
      const before = this.#beforeStep(s);
      if (before) return before;
      s.steps++;
      // The common step sends at once, and its answer is awaited here: no promise of the step's own.
      const started = this.#startModelStep(s);
      let acted: Next | Promise<Next>;
      if (started instanceof Promise || 'outcome' in started) {
        const step = started instanceof Promise ? await started : started;
        if ('outcome' in step) return step.outcome;
        acted = this.#onResultHeld(s, step.result);
      } else {
        const first = this.#firstAnswered(s, started, await started.answer);
        if (typeof first === 'object' && 'retrying' in first) {
          const step = await first.retrying;
          if ('outcome' in step) return step.outcome;
          acted = this.#onResultHeld(s, step.result);
        } else acted = first;
      }
      const next = acted instanceof Promise ? await acted : acted;
      if (next !== 'next_step') return next;
    }
  }

  // ---------------------------------------------------------------------------
  // CLAIMING
  // ---------------------------------------------------------------------------

  /** Opens the turn, takes its input and asks the claim policy. */
  async #claiming(s: TurnState): Promise<Next> {
    if (s.refused) {
      appendTurnOpened(this.#log, s.turn, '');
      holdTurn(this.#log, s.turn);
      throw s.refused;
    }
    const claimed = takeForTurnStart(this.#log.positions.pending());
    appendTurnOpened(this.#log, s.turn, claimed[0]?.id ?? '');
    // The turn is the loop's to close: a close appended under it (a hook handed the log) is refused.
    holdTurn(this.#log, s.turn);
    // Only a linked signal already aborted can have cancelled the scope yet (nothing else runs before the open).
    const early = s.scope.cancelled;
    if (early) this.#recordCancel(early.by, this.#deps.redact(early.reason));

    // The claim policy filters what people sent; what the loop wrote itself passes untouched.
    const decided = await this.#claim(
      s,
      claimed.filter((m) => !isLoopWritten(m.source)),
    );
    // Even when the policy broke, the messages are taken: left pending they would
    // start the same failing turn again and again.
    const decision: ClaimDecision = decided.decision === 'threw' || decided.decision === 'broken' ? { decision: 'allow' } : decided;
    let delivered = 0;
    for (const message of claimed) {
      const loopWritten = isLoopWritten(message.source);
      const rewritten = decision.decision === 'allow' && !loopWritten ? decision.rewrite?.get(message.id) : undefined;
      const dropped = rewritten === null || saysNothing(rewritten ?? message.text);
      appendUserMessage(this.#log, s.turn, message.id, message.intent, dropped ? '' : (rewritten ?? message.text), dropped);
      s.taken.push({ id: message.id, source: message.source, seen: false });
      // A notice alone is no work: the turn is for what people sent.
      if (!dropped && !loopWritten) delivered++;
    }
    // A barrier: the turn's claim is stored before any model request is spent on it.
    try {
      await this.#deps.persist('barrier'); // a failure (a rejection, or a throw) becomes a PersistenceError
    } catch (error) {
      throw new PersistenceError(error);
    }
    // A broken policy is a bug, not a verdict on the user: failed{internal}, not rejected.
    if (decided.decision === 'threw') return { kind: 'failed', reason: 'internal', detail: `the claim policy threw: ${describeError(decided.error)}` };
    if (decided.decision === 'broken') {
      return { kind: 'failed', reason: 'internal', detail: `the claim policy answered a decision outside its shape: ${decided.problem}` };
    }
    if (s.scope.cancelled) return this.#cancelled(s);
    if (decision.decision === 'deny') {
      // A policy in JavaScript, or cast, is held to no type: a reason that is not text is no rejection the log can store.
      const rejected: Outcome = { kind: 'rejected', ...(decision.reason !== undefined ? { reason: decision.reason } : {}) };
      const problem = outcomeProblem(rejected);
      return problem === undefined
        ? rejected
        : { kind: 'failed', reason: 'internal', detail: `the claim policy denied the messages with a rejection outside the alphabet: ${problem}` };
    }
    if (delivered === 0) return { kind: 'nothing_to_do' };
    return 'next_step';
  }

  #claim(s: TurnState, claimed: readonly PendingMessage[]): Promise<ClaimDecision | ClaimBroke> {
    const policy = this.#deps.claim;
    if (!policy) return Promise.resolve({ decision: 'allow' });
    return raceAbort<ClaimDecision | ClaimBroke>(
      Promise.resolve()
        .then(() => policy.claim(claimed, s.scope.signal))
        .then((decided) => {
          const problem = claimProblem(decided, claimed);
          return problem === undefined ? decided : { decision: 'broken', problem };
        }),
      s.scope.signal,
      () => ({ decision: 'allow' }), // the cancel is seen right after
      (error) => ({ decision: 'threw', error }),
    );
  }

  /** Takes the steers and injects waiting in the inbox into the current step. */
  #takeStepInput(s: TurnState): void {
    if (!this.#log.positions.hasPending()) return; // the common step: nothing waits
    for (const message of takeForNextStep(this.#log.positions.pending())) {
      const nothing = saysNothing(message.text);
      appendUserMessage(this.#log, s.turn, message.id, message.intent, nothing ? '' : message.text, nothing);
      s.taken.push({ id: message.id, source: message.source, seen: false });
    }
  }

  // ---------------------------------------------------------------------------
  // Between steps: the budgets a step must fit in before it starts
  // ---------------------------------------------------------------------------

  #beforeStep(s: TurnState): Outcome | undefined {
    const { config } = this.#deps;
    if (s.steps >= config.maxSteps) return { kind: 'failed', reason: 'max_steps', detail: `step limit ${config.maxSteps} reached` };
    const budget = this.#tokenBudgetSpent(s);
    if (budget) return { kind: 'failed', reason: 'budget_exhausted', detail: budget };
    return undefined;
  }

  #tokenBudgetSpent(s: TurnState): string | undefined {
    const { maxTokensPerTurn, maxTokensPerSession } = this.#deps.config;
    const turnTokens = s.inputTokens + s.outputTokens;
    if (maxTokensPerTurn !== undefined && turnTokens >= maxTokensPerTurn) return `token budget per turn (${maxTokensPerTurn}) spent: ${turnTokens}`;
    if (maxTokensPerSession !== undefined) {
      const total = this.#sessionTokens() + turnTokens;
      if (total >= maxTokensPerSession) return `token budget per session (${maxTokensPerSession}) spent: ${total}`;
    }
    return undefined;
  }

  /** Tokens of closed turns, folded incrementally. */
  #sessionTokens(): number {
    return this.#tokens.total();
  }

  // ---------------------------------------------------------------------------
  // MODEL: a request in flight, and what its result leads to
  // ---------------------------------------------------------------------------

  /**
   * A step's request. When the client is chosen at once (no retry-after window
   * to wait for, the common step), its first attempt is sent synchronously and
   * returned in flight: the caller awaits its answer and hands it to
   * `#firstAnswered`. Otherwise the whole step, as a promise (`#awaitingModel`).
   */
  #startModelStep(s: TurnState): ModelCall | { readonly outcome: Outcome } | Promise<StepResult> {
    const chosen = this.#clientForStep(s);
    if (chosen instanceof Promise) return this.#awaitingModel(s, chosen);
    if ('outcome' in chosen) return chosen;
    // Steers and injects that arrived while the step was prepared (after its input was taken) join it too.
    this.#takeStepInput(s);
    if (s.scope.cancelled) return { outcome: this.#cancelled(s) };
    return this.#send(s, chosen.client, 1);
  }

  /**
   * The first attempt's answer. A result, and what it leads to, on one timestamp
   * (clock.ts): its record and span, then `#onResult`'s synchronous part (the
   * assistant message, its write, the step's call up to the tool's run). An error:
   * the error chain from there on (`retrying`).
   */
  #firstAnswered(s: TurnState, sent: ModelCall, answer: ModelResult): Next | Promise<Next> | { readonly retrying: Promise<StepResult> } {
    let result: ModelResult;
    holdTime();
    try {
      result = this.#answeredHeld(s, sent, answer);
      if (result.type !== 'transport_error' && result.type !== 'context_window_exceeded') return this.#onResult(s, result);
    } finally {
      releaseTime();
    }
    return { retrying: this.#attempts(s, sent.client, 1, result) };
  }

  /** A step whose client choice waits (a retry-after window): through as many attempts as the error chain allows. */
  async #awaitingModel(s: TurnState, chosen: Promise<ClientChoice>): Promise<StepResult> {
    const first = await chosen;
    if ('outcome' in first) return first;
    // Steers and injects that arrived while the step was prepared (after its input was taken) join it too.
    this.#takeStepInput(s);
    return this.#attempts(s, first.client, 1, undefined);
  }

  /**
   * Attempts of one step from `attempt` on, as many as the error chain allows;
   * `failed` is that attempt's error when it was already sent and answered.
   */
  async #attempts(s: TurnState, client: ModelClient, attempt: number, failed: ModelErrorResult | undefined): Promise<StepResult> {
    let counters: Map<string, number> | undefined;
    for (; ; attempt++) {
      if (failed === undefined) {
        if (s.scope.cancelled) return { outcome: this.#cancelled(s) };
        if (attempt > MAX_ATTEMPTS_PER_STEP) {
          return { outcome: { kind: 'failed', reason: 'provider_unavailable', detail: `gave up after ${MAX_ATTEMPTS_PER_STEP} attempts` } };
        }
        const sent = this.#send(s, client, attempt);
        if ('outcome' in sent) return sent;
        const result = this.#answered(s, sent, await sent.answer);
        if (result.type !== 'transport_error' && result.type !== 'context_window_exceeded') return { result };
        failed = result;
      }
      if (s.scope.cancelled) return { outcome: this.#cancelled(s) };
      counters ??= new Map<string, number>();
      const recovery = await this.#recovering(s, failed, attempt, counters, client);
      // A cancel that landed while the chain worked (a compaction it cut short) wins over the chain's verdict.
      if ('outcome' in recovery) return s.scope.cancelled ? { outcome: this.#cancelled(s) } : recovery;
      client = recovery.retryWith ?? client;
      failed = undefined;
    }
  }

  /** The clients in the order the loop tries them: the primary, then the fallbacks. */
  #chain(): readonly ModelClient[] {
    return (this.#clients ??= Object.freeze([this.#deps.model, ...(this.#deps.fallbackModels ?? [])]));
  }
  #clients: readonly ModelClient[] | undefined;

  /**
   * The client a step starts with: the first of the chain outside its retry-after
   * window. When every one is inside its window, the step waits for the first
   * window to end — if that is no longer than the loop waits for a retry-after
   * (`retry.maxRetryAfterMs`); otherwise the turn fails `rate_limited`, as the error
   * chain decides for a retry-after it will not wait.
   */
  #clientForStep(s: TurnState): ClientChoice | Promise<ClientChoice> {
    const chain = this.#chain();
    // No client ever gave a retry-after (the common case): the primary, without asking the clock.
    if (!this.#windows.any()) return (this.#primary ??= { client: chain[0]! });
    const now = this.#deps.clock.now();
    for (const c of chain) if (!this.#windows.closed(c.name, now)) return { client: c };
    return this.#waitForWindow(s, chain, now);
  }
  #primary: ClientChoice | undefined;

  /** Every client is inside its retry-after window: wait for the first to end, or fail `rate_limited`. */
  async #waitForWindow(s: TurnState, chain: readonly ModelClient[], now: number): Promise<ClientChoice> {
    const { clock, config } = this.#deps;
    let soonest = chain[0]!;
    for (const c of chain) if ((this.#windows.until(c.name) ?? 0) < (this.#windows.until(soonest.name) ?? 0)) soonest = c;
    const waitMs = (this.#windows.until(soonest.name) ?? now) - now;
    if (waitMs > config.retry.maxRetryAfterMs) {
      return {
        outcome: {
          kind: 'failed',
          reason: 'rate_limited',
          detail: `every model client is inside its retry-after window; the first ends in ${waitMs} ms, longer than the ${config.retry.maxRetryAfterMs} ms limit`,
        },
      };
    }
    const span = s.span.child('backoff', `wait ${waitMs} ms`, { delayMs: waitMs, handler: 'retry-after-window', client: soonest.name });
    await clock.sleep(waitMs, s.scope.signal);
    span.end(s.scope.cancelled ? 'cancelled' : 'ok');
    if (s.scope.cancelled) return { outcome: this.#cancelled(s) };
    this.#takeStepInput(s); // steers and injects that arrived during the wait join this step
    return { client: soonest };
  }

  /** Records the request (prompt, tools, messages by reference to the log) and sends it: its records and span on one timestamp (clock.ts). */
  #send(s: TurnState, client: ModelClient, attempt: number): ModelCall | { readonly outcome: Outcome } {
    holdTime();
    try {
      return this.#sendHeld(s, client, attempt);
    } finally {
      releaseTime();
    }
  }

  #sendHeld(s: TurnState, client: ModelClient, attempt: number): ModelCall | { readonly outcome: Outcome } {
    const deps = this.#deps;
    const { config } = deps;
    const messages = this.#projection.currentList();
    const violation = this.#projection.pairingViolation();
    if (violation) {
      return {
        outcome: {
          kind: 'failed',
          reason: 'internal',
          detail: `refusing to send a malformed history: message ${violation.messageIndex}: ${violation.problem}`,
        },
      };
    }
    const upTo = this.#log.length;
    const tools = deps.tools.specs();
    const refs = recordPromptAndTools(this.#log, deps.prompt, tools, this.#lastTools);
    if (refs.errors.length > 0) {
      // A fragment that failed is left out, and said so — in the log (above) and in the trace.
      s.span
        .child('prompt', 'prompt fragments', { step: s.steps })
        .end('error', { omitted: refs.errors.map((e) => e.id), error: refs.errors.map((e) => `${e.id}: ${e.message}`).join('; ') });
    }
    const system = (this.#log.at(refs.prompt) as Extract<LogEvent, { type: 'prompt.assembled' }>).payload.system;
    // Each client is asked for its own model; one that names none, for the configured one.
    const model = client.model ?? config.model;
    appendModelRequest(this.#log, {
      turn: s.turn,
      step: s.steps,
      attempt,
      client: client.name,
      model,
      upTo,
      prompt: refs.prompt,
      tools: refs.tools,
      maxTokens: config.maxTokens,
      temperature: config.temperature,
    });
    const request = requestWithMessages(messages, {
      model,
      system,
      tools,
      maxTokens: config.maxTokens,
      signal: s.scope.signal,
      temperature: config.temperature,
      timeoutMs: config.modelTimeoutMs,
    });
    return this.#callModel(s, client, request, attempt);
  }

  /** Sends the request: the call's answer races the turn's cancel signal (and the model timeout, when configured). */
  #callModel(s: TurnState, client: ModelClient, request: ModelRequest, attempt: number): ModelCall {
    const span = s.span.child('model_call', client.name, { step: s.steps, attempt, model: request.model });
    const pending: ModelCall = { client, span, attempt, open: true, streams: undefined, answer: undefined as unknown as Promise<ModelResult> };
    const onDelta = (delta: ModelDelta) => {
      if (!pending.open) return;
      // Each stream is redacted across its deltas: a key split between two is held back until it can be redacted whole.
      pending.streams ??= new DeltaStreams(this.#deps.redact, this.#deps.streamRedaction ?? streamRedactor);
      this.#storeDeltas(s, attempt, pending.streams.push(delta));
    };
    let call: Promise<ModelResult>;
    const held = suspendTime(); // the client's own work runs on the real clock
    try {
      call = client.call(request, onDelta);
    } catch (error) {
      call = Promise.reject(error);
    } finally {
      resumeTime(held);
    }
    // A result missing its parts broke the client's contract as a rejection does: named, then a network error.
    // Its texts are kept well-formed: half a surrogate pair would ride in every later request (well-formed-result.ts).
    const checked = (result: ModelResult): ModelResult => {
      const problem = modelResultProblem(result);
      return problem === undefined
        ? wellFormedResult(result)
        : { type: 'transport_error', kind: 'network', message: `model client ${client.name} returned a malformed result (contract violation): ${problem}` };
    };
    const timeoutMs = request.timeoutMs;
    pending.answer = raceAbort<ModelResult>(
      call,
      s.scope.signal,
      () => answerAfterAbort<ModelResult>(call, this.#deps.clock, CANCELLED_CALL, usageOnly),
      // Providers never reject; one that does broke its contract. Keep going as a transport failure.
      (error) => ({ type: 'transport_error', kind: 'network', message: `model client rejected (contract violation): ${describeError(error)}` }),
      // Providers honour the timeout themselves; this is the backstop for one that hangs.
      timeoutMs === undefined
        ? undefined
        : {
            clock: this.#deps.clock,
            ms: timeoutMs,
            value: () => (s.scope.cancelled ? undefined : { type: 'transport_error', kind: 'timeout', message: `no result within ${timeoutMs} ms` }),
          },
      checked,
    );
    return pending;
  }

  #storeDeltas(s: TurnState, attempt: number, deltas: readonly ModelDelta[]): void {
    for (const delta of deltas) appendModelDelta(this.#log, s.turn, s.steps, attempt, delta);
  }

  /** The model's answer came back: what the stream still held, the span, usage and the `model.result` record (on one timestamp, clock.ts). */
  #answered(s: TurnState, pending: ModelCall, result: ModelResult): ModelResult {
    holdTime();
    try {
      return this.#answeredHeld(s, pending, result);
    } finally {
      releaseTime();
    }
  }

  #answeredHeld(s: TurnState, pending: ModelCall, result: ModelResult): ModelResult {
    const { span, attempt } = pending;
    pending.open = false;
    if (pending.streams) this.#storeDeltas(s, attempt, pending.streams.end());
    const ok = result.type === 'reply' || result.type === 'tool_use';
    const inputTokens = result.usage?.inputTokens ?? null;
    const outputTokens = result.usage?.outputTokens ?? null;
    span.end(
      result.type === 'transport_error' && result.kind === 'aborted' ? 'cancelled' : ok ? 'ok' : 'error',
      result.type === 'transport_error'
        ? { result: result.type, kind: result.kind, inputTokens, outputTokens }
        : { result: result.type, inputTokens, outputTokens },
    );
    // Recorded before it is summed: a usage the log cannot hold (a client's NaN or BigInt count) is refused naming
    // its field, not met first by the sums as a bare TypeError.
    appendModelResult(this.#log, s.turn, s.steps, attempt, result, this.#deps.redact);
    if (result.usage) {
      s.inputTokens = addTokens(s.inputTokens, result.usage.inputTokens);
      s.outputTokens = addTokens(s.outputTokens, result.usage.outputTokens);
      addUsageDetail(s.usageDetail, result.usage);
    }
    return result;
  }

  /**
   * `#onResult`'s synchronous part on one timestamp (clock.ts): the assistant
   * message, its write and — when that is done at once — the step's call, up to
   * the tool's run (which runs on the real clock, as always).
   */
  #onResultHeld(s: TurnState, result: Exclude<ModelResult, ModelErrorResult>): Next | Promise<Next> {
    holdTime();
    try {
      return this.#onResult(s, result);
    } finally {
      releaseTime();
    }
  }

  /** Where the model's answer leads: CHECKPOINT (reply), TOOLS (tool use), or an outcome. */
  #onResult(s: TurnState, result: Exclude<ModelResult, ModelErrorResult>): Next | Promise<Next> {
    switch (result.type) {
      case 'reply':
        return this.#replied(s, result);
      case 'tool_use':
        return this.#toolUse(s, result);
      case 'max_tokens':
        return {
          kind: 'failed',
          reason: 'max_tokens',
          detail: result.partialToolCall ? 'output limit reached inside a tool call; the partial call was not run' : 'output limit reached',
        };
      case 'refusal':
        return { kind: 'failed', reason: 'refusal', detail: this.#deps.redact(result.text || 'the model refused') };
      case 'unknown':
        return { kind: 'failed', reason: 'unknown_stop_reason', detail: `stop reason "${result.stopReason}"` };
      default:
        return assertNever(result, 'model result');
    }
  }

  /** A reply: the turn closes unless a steer waits or a checkpoint hook extends it. */
  async #replied(s: TurnState, result: ReplyResult): Promise<Next> {
    const { config } = this.#deps;
    if (result.text.trim().length === 0 && !result.content.some((b) => b.type === 'text' && b.text.trim())) {
      return { kind: 'failed', reason: 'empty_reply', detail: 'the model ended its turn with no text' };
    }
    appendAssistantMessage(this.#log, s.turn, s.steps, result.content);
    markSeen(s);
    s.reply = result.text;
    try {
      // A failure (a rejection, or a throw) becomes a PersistenceError; a write done at once (`WRITTEN`) is not waited for.
      const written = this.#deps.persist('step');
      if (written !== WRITTEN) await written;
    } catch (error) {
      throw new PersistenceError(error);
    }
    // The turn ends when no steer waits — checked again after the hooks, which take time.
    const more = s.steps < config.maxSteps;
    if (more && this.#steerWaiting()) return 'next_step';
    if (more && (await this.#checkpoint(s))) return 'next_step';
    if (s.scope.cancelled) return this.#cancelled(s);
    if (more && this.#steerWaiting()) return 'next_step';
    return { kind: 'replied' };
  }

  /**
   * Tool calls: recorded, then run unless a budget forbids it (invariant 11: checked
   * before any runs). Without a promise when nothing in it waits: the step's writes
   * done at once (the persist returned `WRITTEN`) and the call settled synchronously.
   * Otherwise awaited exactly as always (the same turns of the microtask queue: a
   * host's writer interleaves with the loop as it did).
   */
  #toolUse(s: TurnState, result: ToolUseResult): Next | Promise<Next> {
    const plan = planStepCalls(result.calls, result.content, this.#log, this.#deps.redact);
    const calls = plan.calls;
    appendAssistantMessage(this.#log, s.turn, s.steps, plan.content);
    markSeen(s);
    s.journal.planned(calls);
    let written: Promise<void>;
    try {
      written = this.#deps.persist('step');
    } catch (error) {
      return Promise.reject(new PersistenceError(error));
    }
    if (written !== WRITTEN) return this.#toolUseAfterWrite(s, calls, written);
    const refused = this.#callsRefused(s, calls);
    if (refused) return refused;
    const running = this.#runningTools(s, calls);
    if (running !== undefined) return this.#callsRunning(s, running);
    if (s.journal.writeAheadFailure) return Promise.reject(s.journal.writeAheadFailure);
    try {
      written = this.#deps.persist('step');
    } catch (error) {
      return Promise.reject(new PersistenceError(error));
    }
    return written === WRITTEN ? 'next_step' : this.#stepWritten(written);
  }

  /** `#toolUse` once its first write is not done at once: as it always ran. */
  async #toolUseAfterWrite(s: TurnState, calls: readonly PlannedCall[], written: Promise<void>): Promise<Next> {
    try {
      await written; // a failure (a rejection, or a throw) becomes a PersistenceError
    } catch (error) {
      throw new PersistenceError(error);
    }
    const refused = this.#callsRefused(s, calls);
    if (refused) return refused;
    const running = this.#runningTools(s, calls);
    if (running !== undefined) await running;
    if (s.journal.writeAheadFailure) throw s.journal.writeAheadFailure;
    try {
      await this.#deps.persist('step'); // a failure (a rejection, or a throw) becomes a PersistenceError
    } catch (error) {
      throw new PersistenceError(error);
    }
    return 'next_step';
  }

  /** The step's calls still running after a first write done at once. */
  async #callsRunning(s: TurnState, running: Promise<void>): Promise<Next> {
    await running;
    if (s.journal.writeAheadFailure) throw s.journal.writeAheadFailure;
    try {
      await this.#deps.persist('step');
    } catch (error) {
      throw new PersistenceError(error);
    }
    return 'next_step';
  }

  async #stepWritten(written: Promise<void>): Promise<Next> {
    try {
      await written;
    } catch (error) {
      throw new PersistenceError(error);
    }
    return 'next_step';
  }

  /** The budgets a step's calls must fit in (invariant 11: checked before any runs); counts them in when they fit. */
  #callsRefused(s: TurnState, calls: readonly PlannedCall[]): Outcome | undefined {
    const { config } = this.#deps;
    // Invariant 11: never run a round whose results the model could not see.
    if (s.steps >= config.maxSteps) {
      return {
        kind: 'failed',
        reason: 'max_steps',
        detail: `step limit ${config.maxSteps} reached with ${calls.length} tool call(s) pending; they were not run`,
      };
    }
    if (s.toolCalls + calls.length > config.maxToolCallsPerTurn) {
      return { kind: 'failed', reason: 'budget_exhausted', detail: `tool-call budget per turn (${config.maxToolCallsPerTurn}) would be exceeded` };
    }
    const sessionCalls = this.#log.positions.toolExecutions + calls.length;
    if (sessionCalls > config.maxToolCallsPerSession) {
      return { kind: 'failed', reason: 'budget_exhausted', detail: `tool-call budget per session (${config.maxToolCallsPerSession}) would be exceeded` };
    }
    s.toolCalls += calls.length;
    return undefined;
  }

  #steerWaiting(): boolean {
    return takeForNextStep(this.#log.positions.pending()).some((m) => m.intent === 'steer');
  }

  // ---------------------------------------------------------------------------
  // RECOVERING: the model-error chain
  // ---------------------------------------------------------------------------

  /** Passes a failed attempt through the error chain; records and carries out its decision. */
  async #recovering(s: TurnState, result: ModelErrorResult, attempt: number, counters: Map<string, number>, current: ModelClient): Promise<Recovery> {
    const deps = this.#deps;
    const chain = this.#chain();
    const now = deps.clock.now();
    const context: ErrorContext = {
      turn: s.turn,
      step: s.steps,
      attempt,
      config: deps.config,
      // The clients after this one in the chain, skipping any inside its retry-after window.
      fallbacks: chain.slice(chain.indexOf(current) + 1).filter((c) => !this.#windows.closed(c.name, now)),
      counters,
      random: this.#random,
      compact: async () => {
        const span = s.span.child('compaction', 'compaction', { step: s.steps });
        const report = await applyCompaction(this.#log, this.#projection, deps.compactor, s.scope.signal);
        span.end(report.shrank ? 'ok' : 'error', {
          shrank: report.shrank,
          tokensBefore: report.tokensBefore,
          tokensAfter: report.tokensAfter,
          detail: report.detail,
        });
        return report;
      },
    };
    let handled;
    try {
      handled = await handleModelError(result, context, this.#handlers);
    } catch (error) {
      handled = {
        handler: 'error-chain',
        decision: {
          action: 'fail' as const,
          outcome: { kind: 'failed' as const, reason: 'internal' as const, detail: `error handler threw: ${describeError(error)}` },
          detail: 'handler threw',
        },
      };
    }
    const { decision } = handled;
    this.#log.append('model.error_handled', {
      turn: s.turn,
      step: s.steps,
      attempt,
      handler: handled.handler,
      action: decision.action,
      ...(decision.action === 'retry' ? { delayMs: decision.delayMs } : {}),
      detail: deps.redact(decision.detail),
    });
    switch (decision.action) {
      case 'fail':
        return { outcome: decision.outcome };
      case 'switch_client':
        // The primary's window, stored before the fallback is asked: a host reopened after a crash during that call
        // leaves the primary alone until it ends (review of stop 66, LOW-6).
        if (result.type === 'transport_error' && result.retryAfterMs !== undefined) await this.#storeWindow();
        return { retryWith: decision.client };
      case 'retry':
        if (decision.delayMs > 0) {
          const span = s.span.child('backoff', `wait ${decision.delayMs} ms`, { delayMs: decision.delayMs, handler: handled.handler });
          // A retry-after window is the provider's, not the process's: stored before the wait, so a host reopened after a
          // crash inside it reads it back and waits it out, instead of asking a rate-limited provider at once (outside
          // probe 65, F1). The wait the log records has its span, ended as an error if the write is refused.
          if (result.type === 'transport_error' && result.retryAfterMs !== undefined) {
            try {
              await this.#storeWindow();
            } catch (error) {
              span.end('error');
              throw error;
            }
          }
          await deps.clock.sleep(decision.delayMs, s.scope.signal);
          span.end(s.scope.cancelled ? 'cancelled' : 'ok');
        }
        return { retryWith: undefined };
      default:
        return assertNever(decision, 'error decision');
    }
  }

  // ---------------------------------------------------------------------------
  // TOOLS
  // ---------------------------------------------------------------------------

  /** The step's calls: one runs at once (settled without a promise when nothing in it waits), several in batches. */
  #runningTools(s: TurnState, calls: readonly PlannedCall[]): Promise<void> | undefined {
    if (calls.length !== 1) return this.#runningBatches(s, calls);
    if (s.scope.cancelled) return undefined; // the call gets a "not run" result when the turn closes
    return this.#runTool(s, calls[0]!);
  }

  async #runningBatches(s: TurnState, calls: readonly PlannedCall[]): Promise<void> {
    const tools = this.#deps.tools;
    // Consecutive parallel-safe calls run together; anything else runs alone, in order.
    let i = 0;
    while (i < calls.length) {
      if (s.scope.cancelled) return; // the rest get "not run" results when the turn closes
      let j = i + 1;
      if (tools.parallelSafe(calls[i]!.call.name)) while (j < calls.length && tools.parallelSafe(calls[j]!.call.name)) j++;
      if (j === i + 1) await this.#runToolAwaited(s, calls[i]!);
      else await allSettledOrFirstError(calls.slice(i, j).map((c) => this.#runToolAwaited(s, c)));
      i = j;
    }
  }

  /** One call of a batch: its result is written after it settles, so the batch's records come in the order they always did. */
  async #runToolAwaited(s: TurnState, planned: PlannedCall): Promise<void> {
    const step = s.steps;
    let settled;
    try {
      settled = await this.#deps.tools.execute(planned.call, this.#toolContext(s, step, planned));
    } catch (error) {
      settled = s.journal.pipelineError(planned.call, error);
    }
    s.journal.settled(step, planned.call, settled);
  }

  /**
   * A step's one call: its result is written as soon as it settles (at once when
   * the pipeline settles it synchronously). Its synchronous part on one timestamp
   * (clock.ts); the pipeline lets the clock run free around the tool's run and
   * the policy's decision.
   */
  #runTool(s: TurnState, planned: PlannedCall): Promise<void> | undefined {
    holdTime();
    try {
      return this.#runToolHeld(s, planned);
    } finally {
      releaseTime();
    }
  }

  #runToolHeld(s: TurnState, planned: PlannedCall): Promise<void> | undefined {
    const step = s.steps;
    const { call } = planned;
    const tools = this.#deps.tools;
    let settled: SettledToolCall | Promise<SettledToolCall>;
    try {
      const ctx = this.#toolContext(s, step, planned);
      settled = tools.executeNow ? tools.executeNow(call, ctx) : tools.execute(call, ctx);
    } catch (error) {
      settled = s.journal.pipelineError(call, error);
    }
    if (!(settled instanceof Promise)) {
      s.journal.settled(step, call, settled);
      return undefined;
    }
    return settled.then(
      (done) => s.journal.settled(step, call, done),
      (error: unknown) => s.journal.settled(step, call, s.journal.pipelineError(call, error)),
    );
  }

  #toolContext(s: TurnState, step: number, { repeatOf }: PlannedCall): ToolExecutionContext {
    const signal = s.scope.signal;
    const clock = this.#deps.clock;
    const recorder = s.journal.recorder(step);
    const trace = s.span;
    const conversation = this.#deps.conversation;
    // One literal per shape (no spreads); optional fields omitted, in this order.
    if (repeatOf === undefined) {
      return conversation === undefined ? { signal, clock, recorder, trace } : { signal, clock, recorder, trace, conversation };
    }
    return conversation === undefined ? { signal, clock, recorder, trace, repeatOf } : { signal, clock, recorder, trace, repeatOf, conversation };
  }

  // ---------------------------------------------------------------------------
  // CHECKPOINT
  // ---------------------------------------------------------------------------

  /** Runs the pre-close hooks one at a time; true if one extended the turn. */
  async #checkpoint(s: TurnState): Promise<boolean> {
    const hooks = this.#deps.checkpoints ?? [];
    if (hooks.length === 0 || s.extensions >= this.#deps.config.maxCheckpointExtensions) return false;
    for (const hook of hooks) {
      if (s.scope.cancelled) return false;
      const span = s.span.child('checkpoint', hook.name);
      try {
        const result = await raceAbort(
          Promise.resolve().then(() => hook.run({ turn: s.turn, reply: s.reply ?? '', log: this.#log, signal: s.scope.signal })),
          s.scope.signal,
          () => undefined,
          (error) => {
            span.end('error', { error: describeError(error) });
            return undefined;
          },
        );
        if (s.scope.cancelled) {
          // Cut short by the cancel: the hook did not finish, whatever it returns later.
          span.end('cancelled');
          return false;
        }
        if (result && result.extend && typeof result.extend !== 'string') {
          // Held to no type in JavaScript: stored as a steer, a message that is not text is one the reader refuses.
          span.end('error', { error: `the checkpoint ${JSON.stringify(hook.name)} answered an extension that is not text: ${shown(result.extend)}` });
          continue;
        }
        if (result && result.extend) {
          this.#log.append('inbox.received', { id: this.#freshId(), intent: 'steer', text: result.extend, source: `checkpoint:${hook.name}` });
          s.extensions++;
          span.end('ok', { extended: true });
          return true;
        }
        span.end('ok', { extended: false });
      } catch (error) {
        span.end('error', { error: describeError(error) });
      }
    }
    return false;
  }

  // ---------------------------------------------------------------------------
  // Closing
  // ---------------------------------------------------------------------------

  #cancelled(s: TurnState): Outcome {
    return { kind: 'cancelled', by: s.scope.cancelled?.by ?? 'user' };
  }

  /** The one path out of a turn. Never throws. */
  async #closeTurn(s: TurnState, outcome: Outcome): Promise<{ outcome: Outcome; returned: string[] }> {
    // The log refused the turn's `turn.opened` (a log redactor that throws): there is no turn to close, and the
    // outcome already names why. Closing would only fail again ("no turn is open") and hide that.
    if (this.#log.positions.openTurn !== s.turn) {
      holdTurn(this.#log, undefined);
      return { outcome, returned: [] };
    }
    let returned: string[] = [];
    try {
      // Every call of the turn gets a result: unknown if it may have run, failed if it never started.
      s.journal.closeOpen(s.steps, outcome);
      // The turn's steps are stored first: a store that refuses them makes it a persistence failure.
      // What goes back to the inbox is written with the close, in one write: stored without it, a
      // return would outlive a close the store refused (recovery then keeps the turn's steps, the
      // returned messages among them: read twice).
      const decided = outcome;
      try {
        await this.#persist('barrier');
      } catch (error) {
        outcome = { kind: 'failed', reason: 'persistence', detail: (error as Error).message };
      }
      returned = messagesToReturn(outcome, s.taken);
      // A turn that would have kept its steps now keeps none: what it returns as decided goes back too.
      if (outcome !== decided) {
        const asDecided = messagesToReturn(decided, s.taken);
        returned = s.taken.filter((m) => returned.includes(m.id) || asDecided.includes(m.id)).map((m) => m.id);
      }
      // Cancelled, then a write failed before the turn could say so: what the model never read goes back as for the cancel.
      if (s.scope.cancelled && outcome.kind === 'failed' && outcome.reason === 'persistence') {
        const unread = messagesToReturn(this.#cancelled(s), s.taken);
        returned = s.taken.filter((m) => returned.includes(m.id) || unread.includes(m.id)).map((m) => m.id);
      }
      if (returned.length > 0) {
        const reason =
          outcome.kind === 'cancelled'
            ? `turn cancelled by ${outcome.by} before the model saw them`
            : s.scope.cancelled && outcome.kind === 'failed' && outcome.reason === 'persistence'
              ? `turn cancelled by ${s.scope.cancelled.by} before the model saw them, then a write failed`
              : outcome !== decided
                ? "the turn's steps could not be stored; the loop's own messages go back"
                : `the turn ended ${outcomeLabel(outcome)}; the loop's own messages go back until a kept history holds them`;
        this.#log.append('inbox.returned', { turn: s.turn, ids: returned, reason });
      }
      this.#appendClosed(s, outcome);
      if (!keepsCompletedSteps(outcome) && this.#deps.config.sideEffectNotice && s.journal.sideEffects.length > 0) {
        // The turn adds nothing to the history (invariant 5) — a failure, a full
        // conversation — but the world changed: tell the model in its next turn
        // (invariant 14), without waking the loop.
        this.#log.append('inbox.received', {
          id: this.#freshId(),
          intent: 'inject',
          text: sideEffectNotice(outcome, s.journal.sideEffects, this.#log),
          source: SIDE_EFFECT_NOTICE_SOURCE,
        });
      }
      if (outcome.kind !== 'failed' || outcome.reason !== 'persistence') {
        try {
          await this.#persist('barrier');
        } catch (error) {
          outcome = {
            kind: 'failed',
            reason: 'persistence',
            detail: `the turn closed as ${outcomeLabel(outcome)} but the close was not persisted: ${(error as Error).message}`,
          };
        }
      }
    } catch (error) {
      outcome = { kind: 'failed', reason: 'internal', detail: `closing the turn failed: ${describeError(error)}` };
      if (this.#log.positions.openTurn === s.turn) this.#appendClosed(s, outcome);
    }
    return { outcome, returned };
  }

  /** The turn's one `turn.closed`. Falls back to a minimal record: a turn is never left open. */
  #appendClosed(s: TurnState, outcome: Outcome): void {
    holdTurn(this.#log, undefined);
    const payload = {
      turn: s.turn,
      outcome: plainOutcome(outcome, this.#deps.redact),
      steps: s.steps,
      usage: turnUsage(s),
      toolCalls: s.toolCalls,
    };
    try {
      appendTurnClosed(this.#log, payload);
    } catch (error) {
      this.#log.append('turn.closed', {
        turn: s.turn,
        outcome: { kind: 'failed', reason: 'internal', detail: `could not record the outcome: ${describeError(error)}` },
        steps: s.steps,
        usage: { inputTokens: 0, outputTokens: 0 },
        toolCalls: s.toolCalls,
      });
    }
  }

  /**
   * A provider's retry-after window handed to the store ('step') before the loop waits it out or turns to a fallback:
   * the window is the provider's, and outlives a crash. A failure (a rejection, or a throw) becomes a PersistenceError,
   * as at a step's end.
   */
  async #storeWindow(): Promise<void> {
    try {
      const written = this.#deps.persist('step');
      if (written !== WRITTEN) await written;
    } catch (error) {
      throw new PersistenceError(error);
    }
  }

  /** The host's persist; a failure (a rejection, or a throw) becomes a PersistenceError. */
  #persist(durability: Durability): Promise<void> {
    let written: Promise<void>;
    try {
      written = Promise.resolve(this.#deps.persist(durability));
    } catch (error) {
      return Promise.reject(new PersistenceError(error));
    }
    return written.then(undefined, toPersistenceError);
  }

  /** Recording a cancel is best effort: the cancel itself has already taken effect. */
  #recordCancel(by: CancelSource, reason: string): void {
    try {
      this.#log.append('cancel.requested', { by, reason });
    } catch {
      // e.g. a cancel from inside an append's listener: the log refuses re-entrant appends.
    }
  }
}

function toPersistenceError(error: unknown): never {
  throw new PersistenceError(error);
}

/** The model completed a step: every message taken so far is in a step's request. */
function markSeen(s: TurnState): void {
  for (let i = 0; i < s.taken.length; i++) s.taken[i]!.seen = true;
}

function linkSignals(signals: NonNullable<LoopDeps['signals']>): { signal: AbortSignal; by: CancelSource }[] {
  const out: { signal: AbortSignal; by: CancelSource }[] = [];
  if (signals.parent) out.push({ signal: signals.parent, by: 'parent' });
  if (signals.shutdown) out.push({ signal: signals.shutdown, by: 'shutdown' });
  return out;
}

/** What a model call the turn's cancel cut short records. */
const CANCELLED_CALL: ModelResult = Object.freeze({ type: 'transport_error', kind: 'aborted', message: 'the turn was cancelled' });

/** Of a cut-short call's own answer, only the usage counts: the cancel decided how the step ends. */
function usageOnly(answer: ModelResult): ModelResult {
  return answer.usage ? { ...CANCELLED_CALL, usage: answer.usage } : CANCELLED_CALL;
}

/** A claim policy that threw, or answered a decision outside its shape: its messages are taken, and the turn fails internal. */
type ClaimBroke = { readonly decision: 'threw'; readonly error: unknown } | { readonly decision: 'broken'; readonly problem: string };

/**
 * What keeps a claim policy's answer from being a decision the loop can carry
 * out, or undefined (a policy in JavaScript, or cast, is held to no type): taken
 * as an allow, an unknown decision would pass messages no policy passed. A deny's
 * reason is checked with the rejection (`outcomeProblem`).
 */
function claimProblem(value: unknown, claimed: readonly PendingMessage[]): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${shown(value)} is not an object`;
  const d = value as { decision?: unknown; rewrite?: unknown };
  if (d.decision === 'deny') return undefined;
  if (d.decision !== 'allow') return `the decision ${shown(d.decision)} is not allow or deny`;
  if (d.rewrite === undefined) return undefined;
  if (!(d.rewrite instanceof Map)) return `the rewrite ${shown(d.rewrite)} is not a Map`;
  for (const message of claimed) {
    const text: unknown = d.rewrite.get(message.id);
    if (text !== undefined && text !== null && typeof text !== 'string') {
      return `the rewrite of message ${JSON.stringify(message.id)} to ${shown(text)} is neither text nor null`;
    }
  }
  return undefined;
}
