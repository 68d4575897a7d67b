/**
 * Maps a provider failure (an HTTP error response, or an error reported inside a
 * 200 stream) to one normalized result. Adapters extract a `FailureInfo` from
 * their SDK's error and say how their provider words a context overflow.
 */
import type { ModelResult } from '../../src/kernel/index.ts';
import { retryAfterMs } from './retry-after.ts';
import { overflowAtRequest, transportFailure } from './results.ts';

export interface FailureInfo {
  /** HTTP status; absent for errors reported inside a stream. */
  readonly status?: number | undefined;
  readonly headers?: Headers | undefined;
  /** The provider's error type (Anthropic `error.type`, OpenAI `error.type`). */
  readonly type?: string | undefined;
  /** The provider's error code (OpenAI `error.code`). */
  readonly code?: string | undefined;
  readonly message: string;
  /** The adapter's clock when the failure was read (default: the wall clock): a retry-after date counts from it. */
  readonly now?: number | undefined;
}

export type OverflowDetector = (info: FailureInfo) => boolean;

const AUTH_TYPES = new Set(['authentication_error', 'permission_error', 'billing_error', 'invalid_api_key', 'insufficient_quota']);
const RATE_TYPES = new Set(['rate_limit_error', 'rate_limit_exceeded', 'tokens', 'requests']);
const INVALID_TYPES = new Set([
  'invalid_request_error',
  'not_found_error',
  'invalid_prompt',
  'unsupported_parameter',
  'missing_required_parameter',
  'model_not_found',
]);

export function classifyFailure(info: FailureInfo, isOverflow: OverflowDetector): ModelResult {
  const message = info.message || 'provider error';
  if (isOverflow(info)) return overflowAtRequest(message);
  const { status } = info;
  const labels = [info.type, info.code].filter((x): x is string => typeof x === 'string');
  const has = (set: Set<string>) => labels.some((label) => set.has(label));
  // Quota and billing are account problems: retrying cannot help, even when sent as 429.
  const quota = labels.includes('insufficient_quota') || info.type === 'billing_error';

  if (status !== undefined) {
    const extra = { status };
    if (status === 401 || status === 403 || status === 402 || quota) return transportFailure('auth', message, extra);
    // Every status worth retrying keeps the wait its answer asked for: providers send retry-after (and OpenAI
    // retry-after-ms) on 503s and Anthropic's 529s as on 429s, and the loop honours it on any retryable kind.
    const retryable = { status, retryAfterMs: retryAfterMs(info.headers, info.now) };
    if (status === 429) return transportFailure('rate_limited', message, retryable);
    if (status === 408) return transportFailure('timeout', message, retryable);
    if (status === 503 || status === 529 || info.type === 'overloaded_error') return transportFailure('overloaded', message, retryable);
    if (status >= 500) return transportFailure('server_error', message, retryable);
    if (status >= 400) return transportFailure('invalid_request', message, extra);
    return transportFailure('server_error', `unexpected status ${status}: ${message}`, extra);
  }

  // An error inside a 200 stream: only its type, code and words say what it was.
  if (info.type === 'overloaded_error' || /overloaded/i.test(message)) return transportFailure('overloaded', message);
  if (quota || has(AUTH_TYPES)) return transportFailure('auth', message);
  if (has(RATE_TYPES)) return transportFailure('rate_limited', message, { retryAfterMs: retryAfterMs(info.headers, info.now) });
  if (has(INVALID_TYPES)) return transportFailure('invalid_request', message);
  if (labels.includes('timeout_error')) return transportFailure('timeout', message);
  return transportFailure('server_error', message);
}
