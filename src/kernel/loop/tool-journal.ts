/**
 * The tool journal of one turn: every record of a tool call is written here —
 * the policy decision, the start, the result — and nowhere else.
 *
 * - A STATEFUL or CRITICAL start is written ahead: persisted before the tool
 *   runs, so a crash after it can never run the call again (invariant 13). If
 *   that write fails the tool does not run, and the turn stops once the step's
 *   calls have settled (`writeAheadFailure`).
 * - Every call gets exactly one result: the pipeline's, or — when the turn ends
 *   with calls still open — `unknown` (INTERRUPTED) for one that started, and
 *   `failed` (NOT_RUN) for one that never did.
 * - A call whose id the model repeated counts as started once any call of its
 *   chain started (the pipeline then does not run a STATEFUL repeat).
 *
 * Secrets: the log redacts every string it stores, so nothing here redacts.
 */
import type { EventLog } from '../log/event-log.ts';
import type { LogEvent } from '../log/envelope.ts';
import type { ToolCall } from '../model/client.ts';
import { outcomeLabel, type Outcome } from '../outcome.ts';
import { renderError } from '../tools/tool-errors.ts';
import type { PolicyDecision, SettledToolCall, SideEffect, ToolCallRecorder, ToolError } from '../tools/types.ts';
import { PersistenceError, persistOrThrow } from './persistence-error.ts';
import { appendPolicyDecision, appendToolResult, appendToolStarted } from '../log/builders.ts';
import { describeError } from './records.ts';
import type { LoopDeps } from './types.ts';

export class ToolJournal {
  readonly #log: EventLog;
  readonly #turn: number;
  readonly #persist: LoopDeps['persist'];
  /** Tool calls made in this turn, in order. */
  readonly callIds: string[] = [];
  /** STATEFUL / CRITICAL executions started in this turn. */
  readonly sideEffects: { callId: string; name: string }[] = [];
  /** A write-ahead record that could not be stored: the turn stops after the tools settle. */
  writeAheadFailure: PersistenceError | undefined;
  /**
   * Calls whose write-ahead record the store refused. The pipeline does not run
   * them, and they are never retried (only STATEFUL and CRITICAL calls write
   * ahead): their start is in the log, but they never ran. Until their result is
   * written this set says so; after, the result does (`startRefused`: failed after
   * 0 attempts, NOT_RECORDED or NOT_RUN), for this turn and every later one, so a
   * repeat of the call is run, not refused as already started.
   */
  readonly #refusedStarts = new Set<string>();

  constructor(log: EventLog, turn: number, persist: LoopDeps['persist']) {
    this.#log = log;
    this.#turn = turn;
    this.#persist = persist;
  }

  /** The calls of a step the model made, in order (before any of them runs). */
  planned(calls: readonly { readonly call: ToolCall }[]): void {
    for (let i = 0; i < calls.length; i++) this.callIds.push(calls[i]!.call.id);
  }

  #recorder: StepRecorder | undefined;

  /** What the tool pipeline records through, for a call of `step` (one recorder per step). */
  recorder(step: number): ToolCallRecorder {
    if (this.#recorder?.step !== step) this.#recorder = new StepRecorder(this, step);
    return this.#recorder;
  }

  /** A policy decision of a call of `step`. */
  recordPolicy(step: number, callId: string, tool: string, d: PolicyDecision): void {
    appendPolicyDecision(this.#log, this.#turn, step, callId, tool, d.decision, d.by, d.rule);
  }

  /**
   * The start of an execution. A STATEFUL or CRITICAL start is written ahead (the
   * promise settles once it is persisted, rejecting if it could not be); any other
   * is recorded and returns at once.
   */
  recordStart(step: number, entry: StartEntry): Promise<void> | undefined {
    appendToolStarted(this.#log, {
      turn: this.#turn,
      step,
      callId: entry.callId,
      name: entry.name,
      args: entry.args,
      sideEffect: entry.sideEffect,
      attempt: entry.attempt,
      idempotencyKey: entry.idempotencyKey,
    });
    if (!writesAhead(entry.sideEffect)) return undefined;
    return this.#writeAhead(entry);
  }

  async #writeAhead(entry: StartEntry): Promise<void> {
    try {
      await persistOrThrow(this.#persist, 'barrier'); // write-ahead: a crash after this point can never re-run the call
    } catch (error) {
      this.writeAheadFailure ??= error as PersistenceError; // the pipeline settles the call; the turn then stops
      this.#refusedStarts.add(entry.callId);
      throw error;
    }
    if (entry.attempt === 1) this.sideEffects.push({ callId: entry.callId, name: entry.name });
  }

  /**
   * Everything recorded so far stored (a barrier), before an approver is asked about
   * a call of this step. A refusal stops the turn as a refused write-ahead does.
   */
  async stored(): Promise<void> {
    try {
      await persistOrThrow(this.#persist, 'barrier');
    } catch (error) {
      this.writeAheadFailure ??= error as PersistenceError;
      throw error;
    }
  }

  /** Did the call start for real: a start record that the store took (or that needed no write-ahead)? */
  #mayHaveRun(callId: string): boolean {
    return this.#log.positions.call(callId)?.started === true && !this.#refusedStarts.has(callId);
  }

  alreadyStarted(callId: string): boolean {
    const call = this.#log.positions.call(callId);
    return call !== undefined && (call.started || call.repeatStarted);
  }

  describe(callId: string): string {
    return this.#describe(callId);
  }

  /** What is known of a call, for the model: its arguments, and its result so far. */
  #describe(callId: string): string {
    const call = this.#log.positions.call(callId);
    if (!call) return 'nothing (no such call).';
    const made = this.#log.at(call.assistantSeq) as Extract<LogEvent, { type: 'assistant.message' }> | undefined;
    const block = made?.payload.content.find((b) => b.type === 'tool_call' && b.id === callId);
    const args = block && block.type === 'tool_call' ? ` with arguments ${JSON.stringify(block.args)}` : '';
    if (call.result === undefined) return `${call.name} was called${args}; it started and has no result yet.`;
    const result = (this.#log.at(call.result) as Extract<LogEvent, { type: 'tool.result' }>).payload;
    return `${call.name} was called${args}; its result was ${result.status}: ${result.content}`;
  }

  /**
   * The attempts a call that may have run made: its start records (one per attempt, from its first on), so a call
   * closed after a retry began counts that retry too — at least 1.
   */
  #attemptsStarted(callId: string): number {
    const from = this.#log.positions.call(callId)?.startedSeq;
    if (from === undefined) return 1;
    let starts = 0;
    for (let seq = from; seq < this.#log.length; seq++) {
      const e = this.#log.at(seq) as LogEvent | undefined;
      if (e?.type === 'tool.started' && e.payload.callId === callId) starts++;
    }
    return Math.max(1, starts);
  }

  /** The result of a pipeline that broke its contract and threw: `unknown` if the call may have started. */
  pipelineError(call: ToolCall, error: unknown): SettledToolCall {
    const started = this.#mayHaveRun(call.id);
    // A start the store refused: the pipeline never ran the call, whatever its executor did after.
    const failure = this.#refusedStarts.has(call.id)
      ? refusedStartError(call.name)
      : {
          failed_tool: call.name,
          error_code: 'PIPELINE_ERROR',
          error_message: `tool pipeline error: ${describeError(error)}`,
          suggestion: started ? 'It may have run; check before retrying.' : 'Try again later.',
        };
    return {
      callId: call.id,
      name: call.name,
      status: started ? 'unknown' : 'failed',
      // The model reads the structured error, as for any other failed call: "it may have run" included.
      content: renderError(failure),
      error: failure,
      durationMs: 0,
      attempts: started ? this.#attemptsStarted(call.id) : 0,
    };
  }

  /** Writes the call's one result. */
  settled(step: number, call: ToolCall, settled: SettledToolCall): void {
    if (this.#log.positions.call(call.id)?.result !== undefined) return; // already closed (cannot happen: one result per call)
    const fields = {
      turn: this.#turn,
      step,
      callId: call.id,
      name: call.name,
      status: settled.status,
      content: settled.content,
      error: settled.error,
      truncatedFrom: settled.truncatedFrom,
      durationMs: settled.durationMs,
      attempts: settled.attempts,
      output: settled.output,
    };
    try {
      appendToolResult(this.#log, fields);
    } catch {
      // Output that is not plain data must not cost the call its result.
      appendToolResult(this.#log, { ...fields, output: undefined });
    }
  }

  /** Gives every call of the turn still without a result the one it is owed as the turn ends with `outcome`. */
  closeOpen(step: number, outcome: Outcome): void {
    const why = outcome.kind === 'cancelled' ? `the turn was cancelled by ${outcome.by}` : `the turn ended (${outcomeLabel(outcome)})`;
    for (const callId of this.callIds) {
      const call = this.#log.positions.call(callId);
      if (!call || call.result !== undefined) continue;
      // The model reads the same structured error as for any other failed call.
      const refused = this.#refusedStarts.has(callId);
      const ran = this.#mayHaveRun(callId);
      const error = ran
        ? {
            failed_tool: call.name,
            error_code: 'INTERRUPTED',
            error_message: `${call.name} was interrupted: ${why} while it was running. It may or may not have taken effect.`,
            suggestion: 'Check whether it took effect before calling it again.',
          }
        : refused
          ? refusedStartError(call.name)
          : {
              failed_tool: call.name,
              error_code: 'NOT_RUN',
              error_message: `${call.name} was not run: ${why} before it started.`,
              suggestion: 'It never ran; call it again if it is still needed.',
            };
      this.#log.append('tool.result', {
        turn: this.#turn,
        step,
        callId,
        name: call.name,
        status: ran ? 'unknown' : 'failed',
        content: renderError(error),
        error,
        durationMs: 0,
        attempts: ran ? this.#attemptsStarted(callId) : 0,
      });
    }
  }
}

/** What the model reads of a call whose write-ahead record the store refused: it never ran. */
function refusedStartError(tool: string): ToolError {
  return {
    failed_tool: tool,
    error_code: 'NOT_RUN',
    error_message: `${tool} was not run: the store refused the record of its start, so it never started.`,
    suggestion: 'It never ran; call it again if it is still needed.',
  };
}

type StartEntry = Parameters<ToolCallRecorder['started']>[0];

/** The recorder the pipeline is given for the calls of one step. */
class StepRecorder implements ToolCallRecorder {
  readonly #journal: ToolJournal;
  readonly step: number;

  constructor(journal: ToolJournal, step: number) {
    this.#journal = journal;
    this.step = step;
  }

  policy(callId: string, tool: string, decision: PolicyDecision): void {
    this.#journal.recordPolicy(this.step, callId, tool, decision);
  }

  started(entry: StartEntry): Promise<void> | undefined {
    return this.#journal.recordStart(this.step, entry);
  }

  stored(): Promise<void> {
    return this.#journal.stored();
  }

  alreadyStarted(callId: string): boolean {
    return this.#journal.alreadyStarted(callId);
  }

  describe(callId: string): string {
    return this.#journal.describe(callId);
  }
}

function writesAhead(level: SideEffect): boolean {
  return level === 'STATEFUL' || level === 'CRITICAL';
}
