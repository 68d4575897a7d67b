/**
 * How a `generateText` turn ended, in loopgate's closed alphabet — the adapter's
 * documented classifier (the report shows the peer's own ending beside it).
 *
 * Resolved: `stop` with text → replied, without → failed{empty_reply} (the SDK
 * calls it success); `tool-calls` → failed{max_steps} (stopWhen ended on a tool
 * step); `length` → failed{max_tokens}; `content-filter` → failed{refusal};
 * `error` → failed{provider_unavailable}; `other` → failed{unknown_stop_reason}.
 * Thrown: our cancel → cancelled{by the first source}; an `APICallError` (or the
 * last error of a `RetryError`) by status — 401/403 auth, 429 rate_limited, a
 * context-length 400/413 conversation_full, another 4xx invalid_request, the rest
 * provider_unavailable; a `TimeoutError` (the team's `timeout` option ran out
 * before the model answered) provider_unavailable, as loopgate's own loop ends a
 * model call that outlives its `modelTimeoutMs`; anything else failed{internal}
 * with its name.
 */
import { APICallError, RetryError } from 'ai';
import type { Outcome } from '../../kernel/index.ts';
import type { PeerEnding } from '../../harness/loop-port/port.ts';
import { cancelOf } from '../../harness/loop-port/peer-cancel.ts';
import { byStatus } from '../support/by-status.ts';

export function classifyResolved(finishReason: string, text: string): Outcome {
  switch (finishReason) {
    case 'stop':
      return text.trim() ? { kind: 'replied' } : { kind: 'failed', reason: 'empty_reply' };
    case 'tool-calls':
      return { kind: 'failed', reason: 'max_steps' };
    case 'length':
      return { kind: 'failed', reason: 'max_tokens' };
    case 'content-filter':
      return { kind: 'failed', reason: 'refusal' };
    case 'error':
      return { kind: 'failed', reason: 'provider_unavailable' };
    default:
      return { kind: 'failed', reason: 'unknown_stop_reason', detail: finishReason };
  }
}

export function classifyThrown(error: unknown, signal: AbortSignal): Outcome {
  const cancel = cancelOf(signal);
  if (cancel) return { kind: 'cancelled', by: cancel.by };
  const api = RetryError.isInstance(error) ? error.lastError : error;
  if (nameOf(api) === 'TimeoutError') return { kind: 'failed', reason: 'provider_unavailable' };
  if (!APICallError.isInstance(api)) return { kind: 'failed', reason: 'internal', detail: nameOf(error) };
  return byStatus(api.statusCode, api.responseBody ?? api.message);
}

/** An HTTP status (and the body, for context length) as an outcome; shared by both peers. */
export function endingOf(error: unknown): PeerEnding {
  const e = error as { name?: string; message?: string; statusCode?: number; status?: number; lastError?: { statusCode?: number } };
  const status = e?.statusCode ?? e?.status ?? e?.lastError?.statusCode;
  return { kind: 'threw', errorClass: nameOf(error), ...(status !== undefined ? { status } : {}), message: String(e?.message ?? error).slice(0, 300) };
}

function nameOf(error: unknown): string {
  return (error as Error)?.name ?? typeof error;
}
