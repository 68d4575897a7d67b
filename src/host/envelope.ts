/**
 * The response envelope an HTTP handler returns for one message (seed 004 rule 2:
 * the host wraps results). Every outcome maps to a status a client can act on.
 */
import { type TurnResult, assertNever, outcomeLabel, type Outcome } from '../kernel/index.ts';

export interface TurnSummary {
  readonly turn: number;
  readonly outcome: string;
  readonly detail?: string;
  readonly reply?: string;
  readonly steps: number;
  readonly toolCalls: number;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
  readonly returnedToInbox: readonly string[];
}

export interface ResponseEnvelope {
  readonly conversationId: string;
  /** Id of the inbox message this request posted. */
  readonly messageId: string | undefined;
  /** HTTP status for the request as a whole: from the last turn's outcome. */
  readonly status: number;
  readonly turns: readonly TurnSummary[];
  /** The last reply, if the last turn replied. */
  readonly reply?: string;
  readonly error?: string;
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

export function summarizeTurn(result: TurnResult): TurnSummary {
  const detail = result.outcome.kind === 'failed' ? result.outcome.detail : result.outcome.kind === 'rejected' ? result.outcome.reason : undefined;
  return {
    turn: result.turn,
    outcome: outcomeLabel(result.outcome),
    ...(detail !== undefined ? { detail } : {}),
    ...(result.reply !== undefined ? { reply: result.reply } : {}),
    steps: result.steps,
    toolCalls: result.toolCalls,
    usage: result.usage,
    returnedToInbox: result.returnedToInbox,
  };
}
