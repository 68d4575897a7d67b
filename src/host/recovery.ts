/**
 * Crash recovery: closes a turn that a dead process left open, when the host
 * reopens the conversation (field failures "crash mid-turn, resume shows missing
 * history" and "interrupt leaves tool calls without results").
 *
 * It only writes down what is known; it never re-runs anything:
 * - every tool call of the turn without a result gets one. A call with a durable
 *   `tool.started` record gets `unknown` (the process may have died while it ran;
 *   invariant 13 forbids running it again). A `STATEFUL` or `CRITICAL` call without
 *   one provably never ran — its start is written to the store before it runs — so
 *   it gets `failed` / `NOT_RUN`, as the loop's own close path says. Any other call
 *   without a start record (a `NONE` or `IDEMPOTENT` tool is not recorded before it
 *   runs, or the tool is unknown) may have run: `unknown`;
 * - messages taken into the turn after its last assistant message never reached
 *   the model in a completed step, so they go back to the inbox, in order;
 * - the turn closes as `interrupted`, marked `recovered`.
 *
 * Running it on a log with no open turn does nothing, so it is safe to call on
 * every open (and again if the process dies while flushing what it appended).
 */
import {
  addTokens,
  addUsageDetail,
  type EventPayload,
  type InterruptionCause,
  interruptionText,
  isKnown,
  type LogEvent,
  type EventLog,
  messagesToReturn,
  renderError,
  type SideEffect,
  type TakenMessage,
} from '../kernel/index.ts';

export interface RecoveryOptions {
  /**
   * The side-effect level of a tool by name (the host's registry), or undefined for
   * a tool it does not know. Without it, every call without a result is `unknown`.
   */
  readonly sideEffectOf?: (toolName: string) => SideEffect | undefined;
  /** Why the turn was left open: a crash (default), or `store` — the host dropped its log after a refused write. */
  readonly cause?: InterruptionCause;
}

export interface RecoveryReport {
  /** Whether an open turn was found and closed. */
  readonly recovered: boolean;
  /** The turn closed as interrupted. */
  readonly turn?: number;
  /** Tool calls that got an `unknown` result, in call order. */
  readonly unknownCallIds: readonly string[];
  /** STATEFUL / CRITICAL calls that provably never started: `failed` / `NOT_RUN`, in call order. */
  readonly notRunCallIds: readonly string[];
  /** Inbox message ids put back in the inbox, in order. */
  readonly returnedIds: readonly string[];
  /** Seq of the first event recovery appended (they are unflushed until the host flushes). */
  readonly fromSeq?: number;
}

const NOTHING_TO_RECOVER: RecoveryReport = Object.freeze({ recovered: false, unknownCallIds: [], notRunCallIds: [], returnedIds: [] });

type Usage = EventPayload<'turn.closed'>['usage'];

export function recoverConversation(log: EventLog, options: RecoveryOptions = {}): RecoveryReport {
  const turn = log.positions.openTurn;
  if (turn === undefined) return NOTHING_TO_RECOVER;
  const fromSeq = log.length;
  const events = turnEvents(log, turn);

  const why = interruptionText(options.cause);
  const { unknownCallIds, notRunCallIds } = closeOpenCalls(log, turn, events, options.sideEffectOf ?? (() => undefined), why);
  const returnedIds = returnUnseenMessages(log, turn, events, why);

  let steps = 0;
  // The calls that ran, and those settled here as in flight (they may have run: a NONE call's start is never stored first).
  const counted = new Set<string>(unknownCallIds);
  const usage: { -readonly [K in keyof Usage]: Usage[K] } = { inputTokens: 0, outputTokens: 0 };
  for (const event of events) {
    if (event.type === 'model.result') {
      steps++;
      addUsage(usage, event.payload.result.usage);
    } else if (event.type === 'tool.started' && event.payload.attempt === 1) {
      counted.add(event.payload.callId);
    }
  }
  const toolCalls = counted.size;
  const outcome = options.cause ? { kind: 'interrupted' as const, cause: options.cause } : { kind: 'interrupted' as const };
  log.append('turn.closed', { turn, outcome, steps, usage, toolCalls, recovered: true });

  return { recovered: true, turn, unknownCallIds, notRunCallIds, returnedIds, fromSeq };
}

/** The open turn's events, from its `turn.opened` on (opaque events skipped). */
function turnEvents(log: EventLog, turn: number): LogEvent[] {
  // Backwards from the end, event by event: a log resumed from a snapshot reads no more of its prefix than the turn.
  const length = log.length;
  let start = length - 1;
  for (; start >= 0; start--) {
    const event = log.at(start)!;
    if (isKnown(event) && event.type === 'turn.opened' && event.payload.turn === turn) break;
  }
  const out: LogEvent[] = [];
  for (let i = Math.max(start, 0); i < length; i++) {
    const event = log.at(i)!;
    if (isKnown(event)) out.push(event);
  }
  return out;
}

function closeOpenCalls(
  log: EventLog,
  turn: number,
  events: readonly LogEvent[],
  sideEffectOf: (toolName: string) => SideEffect | undefined,
  why: string,
): { unknownCallIds: string[]; notRunCallIds: string[] } {
  const unknownCallIds: string[] = [];
  const notRunCallIds: string[] = [];
  for (const event of events) {
    if (event.type !== 'assistant.message') continue;
    for (const block of event.payload.content) {
      if (block.type !== 'tool_call') continue;
      const call = log.positions.call(block.id);
      if (call === undefined || call.result !== undefined) continue;
      const level = sideEffectOf(call.name);
      // Write-ahead (invariant 13): a STATEFUL or CRITICAL call's start is in the store before it runs.
      const neverRan = !call.started && (level === 'STATEFUL' || level === 'CRITICAL');
      const error = neverRan
        ? {
            failed_tool: call.name,
            error_code: 'NOT_RUN',
            error_message: `${call.name} was not run: ${why} before call "${block.id}" started. It never ran.`,
            suggestion: 'It never ran; call it again if it is still needed.',
          }
        : {
            failed_tool: call.name,
            error_code: 'INTERRUPTED',
            error_message: `${call.name} was interrupted: ${why} while call "${block.id}" was in flight. It may or may not have taken effect.`,
            suggestion: 'Do not retry blindly: first check whether it took effect (for example by reading the state back), then decide.',
          };
      log.append('tool.result', {
        turn,
        step: event.payload.step,
        callId: block.id,
        name: call.name,
        status: neverRan ? 'failed' : 'unknown',
        // The model reads the same structured error as for any other failed call.
        content: renderError(error),
        error,
        durationMs: 0,
        // Every attempt whose start record the store holds (a retry's too), 0 for a call with none.
        attempts: call.started ? Math.max(1, startsOf(events, block.id)) : 0,
      });
      (neverRan ? notRunCallIds : unknownCallIds).push(block.id);
    }
  }
  return { unknownCallIds, notRunCallIds };
}

/** The start records of a call among the turn's events: one per attempt. */
function startsOf(events: readonly LogEvent[], callId: string): number {
  let starts = 0;
  for (const e of events) if (e.type === 'tool.started' && e.payload.callId === callId) starts++;
  return starts;
}

/**
 * Messages go back by the loop's own rule for a turn cut short (`messagesToReturn`
 * with `interrupted`): those taken after the turn's last assistant message (all of
 * them if there is none), whoever wrote them.
 */
function returnUnseenMessages(log: EventLog, turn: number, events: readonly LogEvent[], why: string): string[] {
  let lastAssistant = -1;
  for (let i = events.length - 1; i >= 0; i--) {
    if (events[i]!.type === 'assistant.message') {
      lastAssistant = i;
      break;
    }
  }
  const taken: TakenMessage[] = [];
  events.forEach((event, i) => {
    // Still taken: the dead process may already have returned some of them.
    if (event.type !== 'user.message' || log.positions.inboxState(event.payload.id) !== 'taken' || taken.some((t) => t.id === event.payload.id)) return;
    taken.push({ id: event.payload.id, source: log.positions.message(event.payload.id)?.source ?? '', seen: i < lastAssistant });
  });
  const ids = messagesToReturn({ kind: 'interrupted' }, taken);
  if (ids.length > 0) {
    log.append('inbox.returned', { turn, ids, reason: `${why} before the model saw them; returned by recovery` });
  }
  return ids;
}

function addUsage(sum: { -readonly [K in keyof Usage]: Usage[K] }, usage: Usage | undefined): void {
  if (usage === undefined) return;
  // As the loop counts them: past 2^53 − 1 a count is 2^53 − 1 (never 0: budgets fail closed), negative none; sums held there.
  sum.inputTokens = addTokens(sum.inputTokens, usage.inputTokens);
  sum.outputTokens = addTokens(sum.outputTokens, usage.outputTokens);
  addUsageDetail(sum, usage);
}
