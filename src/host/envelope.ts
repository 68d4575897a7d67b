/**
 * The response envelope an HTTP handler returns for one message (seed 004 rule 2:
 * the host wraps results). Every outcome maps to a status a client can act on.
 *
 * What one `handle` call answers with: the turn(s) that took *its* message.
 *
 * - `delivery: 'turn'` — a turn took the message at its start (a follow-up, or a
 *   steer or inject to a conversation with no turn running): `turns` is that turn,
 *   `status` and `reply` come from it. A follow-up posted while another turn runs
 *   is taken by the next turn, and its call answers when that turn closes.
 * - `delivery: 'joined'` — a steer or inject posted while a turn was running was
 *   taken into that turn's next step: the call resolves when that running turn
 *   closes, with its outcome and reply (the reply that took the steer into account).
 * - `delivery: 'queued'`, status 202 — the message is stored in the inbox but no
 *   turn took it: an inject to an idle conversation (an inject never wakes the
 *   loop), or a message that arrived as the last turn ended and stays for the
 *   next one. The next turn takes it.
 *
 * A turn cancelled before the model saw the message lists it in `returnedToInbox`:
 * it is back in the inbox, stored, and the next turn takes it. Errors (`error`,
 * 4xx/5xx, `turns` empty) say whether the message was stored.
 */
import { type TurnResult, assertNever, outcomeLabel, type Outcome, type EventLog, type LogEvent, isKnown, type Redactor } from '../kernel/index.ts';
import { costOfLog } from '../report/cost/cost-of-log.ts';
import type { PriceTable } from '../report/cost/price-table.ts';

export interface TurnSummary {
  readonly turn: number;
  readonly outcome: string;
  readonly detail?: string;
  readonly reply?: string;
  readonly steps: number;
  readonly toolCalls: number;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
  /**
   * What the turn's model calls cost, when the config has `prices` (calls to a model without a price are counted apart, never
   * as free; so are calls whose usage held a token count ≥ 2^53 − 1, `uncountedCalls`, present when > 0).
   */
  readonly cost?: {
    readonly currency: string;
    readonly amount: number;
    readonly unpricedCalls: number;
    readonly unpricedModels?: readonly string[];
    readonly uncountedCalls?: number;
  };
  readonly returnedToInbox: readonly string[];
  /**
   * The turn's calls that may have taken effect, so a client can tell "nothing happened" from "check before you
   * retry": those whose result is `unknown` (cut off by a cancel, a timeout, a crash), and STATEFUL or CRITICAL
   * calls that ran and then failed — threw (TOOL_ERROR) or returned what the log cannot keep (INVALID_OUTPUT) —
   * which the model is told may have taken effect (outside probe 35, F9). In the order their results were logged. Present when any.
   */
  readonly inDoubt?: readonly { readonly call: string; readonly tool: string; readonly code: string }[];
  /**
   * The turn's STATEFUL or CRITICAL calls that ran and returned ok: what took effect. A turn that failed after them
   * (its provider down, say) told no one — its reply never came — so a client must not take the failure for "nothing
   * happened" and send the request again (outside probe 38, F1). In the order their results were logged. Present when any.
   */
  readonly done?: readonly { readonly call: string; readonly tool: string }[];
  /**
   * For a turn that failed `rate_limited` or `provider_unavailable` while a retry-after a provider named in the
   * conversation (up to the turn's close) still runs: the seconds left of it when the answer is given, rounded up.
   * Present only then.
   */
  readonly retryAfterSeconds?: number;
}

/** Codes of a call that ran and then failed: its side effects, if any, may have happened. */
const RAN_THEN_FAILED: ReadonlySet<string> = new Set(['TOOL_ERROR', 'INVALID_OUTPUT']);

export type Delivery = 'turn' | 'joined' | 'queued';

export interface ResponseEnvelope {
  readonly conversationId: string;
  /** Id of the inbox message this request posted — the client's `messageId` when it gave one — or that its retry repeated. */
  readonly messageId: string | undefined;
  /** HTTP status for the request as a whole: from the last turn's outcome; 202 when queued. */
  readonly status: number;
  /** How the message reached the loop (absent when it was not stored). */
  readonly delivery?: Delivery;
  /** The turns that took this message, in order (usually one). */
  readonly turns: readonly TurnSummary[];
  /** The last reply, if the last turn replied. */
  readonly reply?: string;
  readonly error?: string;
  /** The last turn's `retryAfterSeconds`: what a deploy sends as `Retry-After` with a 429 or 502. */
  readonly retryAfterSeconds?: number;
}

export function httpStatusFor(outcome: Outcome): number {
  switch (outcome.kind) {
    case 'replied':
    case 'nothing_to_do':
      return 200;
    case 'cancelled':
      return 499;
    case 'rejected':
      return 403;
    case 'conversation_full':
      return 409;
    case 'interrupted':
      return 503;
    case 'failed': {
      const reason = outcome.reason;
      switch (reason) {
        case 'rate_limited':
          return 429;
        case 'provider_unavailable':
        case 'auth':
          return 502;
        case 'persistence':
          return 503;
        case 'max_steps':
        case 'budget_exhausted':
        case 'refusal':
        case 'max_tokens':
        case 'unknown_stop_reason':
        case 'empty_reply':
        case 'invalid_request':
          return 422;
        case 'internal':
          return 500;
        default:
          return assertNever(reason, 'failure reason');
      }
    }
    default:
      return assertNever(outcome, 'outcome');
  }
}

/** A turn's summary from the loop's result (already redacted by the loop; `redact` is applied again on the way out). */
export function summarizeTurn(result: TurnResult, redact: Redactor = (text) => text): TurnSummary {
  const detail = result.outcome.kind === 'failed' ? result.outcome.detail : result.outcome.kind === 'rejected' ? result.outcome.reason : undefined;
  return {
    turn: result.turn,
    outcome: outcomeLabel(result.outcome),
    ...(detail !== undefined ? { detail: redact(detail) } : {}),
    ...(result.reply !== undefined ? { reply: redact(result.reply) } : {}),
    steps: result.steps,
    toolCalls: result.toolCalls,
    usage: result.usage,
    returnedToInbox: result.returnedToInbox,
  };
}

/**
 * A closed turn's summary read back from the log (the host answers a message whose
 * turn another request's drain ran). `outcome` is the loop's final word (it may
 * differ from the logged one when the close itself could not be stored).
 */
export function summarizeLoggedTurn(
  log: EventLog,
  turn: number,
  outcome: Outcome,
  redact: Redactor,
  prices?: PriceTable,
  /** When the answer is given (the host's clock): what `retryAfterSeconds` counts from. Default: the turn's close. */
  now?: number,
): TurnSummary {
  const calls: LogEvent[] = []; // the turn's model.request and model.result events, newest first
  let steps = 0;
  let toolCalls = 0;
  let usage = { inputTokens: 0, outputTokens: 0 };
  let reply: string | undefined;
  let lastAssistantSeen = false;
  let closedAt: number | undefined;
  let closeIndex = -1;
  const returned: string[] = [];
  // Calls in doubt and calls done, each at its result's place in the log: listed in the order the results were logged.
  const inDoubt: { at: number; call: { call: string; tool: string; code: string } }[] = [];
  const ranThenFailed = new Map<string, { at: number; call: { call: string; tool: string; code: string } }>();
  const done: { at: number; call: { call: string; tool: string } }[] = [];
  const ranOk = new Map<string, { at: number; call: { call: string; tool: string } }>();
  for (let i = log.length - 1; i >= 0; i--) {
    const event = log.at(i)!;
    if (!isKnown(event)) continue;
    const e = event as LogEvent;
    if (e.type === 'turn.opened' && e.payload.turn === turn) break;
    if ((e.type === 'model.request' || e.type === 'model.result') && e.payload.turn === turn) calls.push(e);
    if (e.type === 'turn.closed' && e.payload.turn === turn) {
      closedAt = e.at;
      closeIndex = i;
      steps = e.payload.steps;
      toolCalls = e.payload.toolCalls;
      usage = { inputTokens: e.payload.usage.inputTokens, outputTokens: e.payload.usage.outputTokens };
    } else if (e.type === 'inbox.returned' && e.payload.turn === turn) {
      returned.unshift(...e.payload.ids);
    } else if (e.type === 'tool.result' && e.payload.turn === turn && e.payload.status === 'unknown') {
      inDoubt.push({ at: i, call: { call: redact(e.payload.callId), tool: e.payload.name, code: e.payload.error?.error_code ?? 'UNKNOWN' } });
    } else if (e.type === 'tool.result' && e.payload.turn === turn && e.payload.status === 'failed' && RAN_THEN_FAILED.has(e.payload.error?.error_code ?? '')) {
      // In doubt only if it changes something: known once its start (earlier in the log, later in this walk) is read.
      ranThenFailed.set(e.payload.callId, { at: i, call: { call: redact(e.payload.callId), tool: e.payload.name, code: e.payload.error!.error_code } });
    } else if (e.type === 'tool.result' && e.payload.turn === turn && e.payload.status === 'ok') {
      // Done if it changes something: known once its start is read.
      ranOk.set(e.payload.callId, { at: i, call: { call: redact(e.payload.callId), tool: e.payload.name } });
    } else if (e.type === 'tool.started' && e.payload.turn === turn && (e.payload.sideEffect === 'STATEFUL' || e.payload.sideEffect === 'CRITICAL')) {
      const failed = ranThenFailed.get(e.payload.callId);
      if (failed) {
        inDoubt.push(failed);
        ranThenFailed.delete(e.payload.callId);
      }
      const ok = ranOk.get(e.payload.callId);
      if (ok) {
        done.push(ok);
        ranOk.delete(e.payload.callId);
      }
    } else if (e.type === 'assistant.message' && e.payload.turn === turn && !lastAssistantSeen) {
      // The reply is the turn's last assistant message (as the loop reports it).
      lastAssistantSeen = true;
      const text = e.payload.content.flatMap((b) => (b.type === 'text' ? [b.text] : []));
      if (text.length > 0) reply = text.join('');
    }
  }
  const detail = outcome.kind === 'failed' ? outcome.detail : outcome.kind === 'rejected' ? outcome.reason : undefined;
  const cost = prices ? costOfLog(calls.reverse(), prices).total : undefined;
  const retryAfterSeconds = closedAt !== undefined ? retryAfterLeft(log, closeIndex, outcome, now ?? closedAt) : undefined;
  return {
    turn,
    outcome: outcomeLabel(outcome),
    ...(detail !== undefined ? { detail: redact(detail) } : {}),
    ...(outcome.kind === 'replied' && reply !== undefined ? { reply: redact(reply) } : {}),
    steps,
    toolCalls,
    usage,
    ...(cost
      ? {
          cost: {
            currency: cost.currency,
            amount: cost.amount,
            unpricedCalls: cost.unpricedCalls,
            ...(cost.unpricedModels ? { unpricedModels: cost.unpricedModels } : {}),
            ...(cost.uncountedCalls ? { uncountedCalls: cost.uncountedCalls } : {}),
          },
        }
      : {}),
    returnedToInbox: returned,
    ...(inDoubt.length > 0 ? { inDoubt: inLogOrder(inDoubt) } : {}),
    ...(done.length > 0 ? { done: inLogOrder(done) } : {}),
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
  };
}

/** Entries found at places in the log, in log order. */
function inLogOrder<T>(found: readonly { at: number; call: T }[]): T[] {
  return [...found].sort((a, b) => a.at - b.at).map((f) => f.call);
}

/**
 * For a turn that failed rate-limited or with its provider unavailable: the seconds left at `now`, rounded up, of the
 * latest retry-after window a provider named in the conversation up to the turn's close (a model result's time plus
 * its `retryAfterMs`; an earlier turn's window counts: the loop keeps it, and a turn inside it asks no model), or
 * undefined when none runs past `now`. What a deploy sends as `Retry-After`.
 */
function retryAfterLeft(log: EventLog, closeIndex: number, outcome: Outcome, now: number): number | undefined {
  if (outcome.kind !== 'failed' || (outcome.reason !== 'rate_limited' && outcome.reason !== 'provider_unavailable')) return undefined;
  let until = -Infinity;
  for (let i = 0; i <= closeIndex; i++) {
    const e = log.at(i)!;
    if (!isKnown(e) || e.type !== 'model.result') continue;
    const ms = (e as Extract<LogEvent, { type: 'model.result' }>).payload.result.retryAfterMs;
    if (ms !== undefined) until = Math.max(until, e.at + ms);
  }
  return until > now ? Math.ceil((until - now) / 1000) : undefined;
}
