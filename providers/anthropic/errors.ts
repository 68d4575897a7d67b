/** Anthropic SDK errors → normalized results. */
import Anthropic from '@anthropic-ai/sdk';
import type { ModelResult } from '../../src/kernel/index.ts';
import type { CallContext } from '../shared/call-runner.ts';
import { describeError } from '../shared/call-runner.ts';
import { classifyFailure, type FailureInfo } from '../shared/failure.ts';
import { transportFailure } from '../shared/results.ts';
import { classifyOtherError } from '../shared/thrown.ts';

/** How the Messages API words a request that does not fit the context window. */
const OVERFLOW_PATTERNS = [
  /prompt is too long/i,
  /input length and `?max_tokens`? exceed context limit/i,
  /exceeds? the (?:model'?s? )?context (?:window|limit)/i,
];

export function isAnthropicOverflow(info: FailureInfo): boolean {
  if (info.type === 'request_too_large' || info.status === 413) return true;
  if (info.status !== undefined && info.status !== 400) return false;
  return OVERFLOW_PATTERNS.some((pattern) => pattern.test(info.message));
}

export function anthropicFailureInfo(error: InstanceType<typeof Anthropic.APIError>): FailureInfo {
  const body = error.error as { error?: { type?: unknown; message?: unknown } } | undefined;
  const message = typeof body?.error?.message === 'string' ? body.error.message : error.message;
  return {
    status: error.status,
    headers: error.headers,
    type: error.type ?? (typeof body?.error?.type === 'string' ? body.error.type : undefined),
    message,
  };
}

export function classifyAnthropicError(error: unknown, ctx: CallContext, now?: () => number): ModelResult {
  if (error instanceof Anthropic.APIUserAbortError) return transportFailure('aborted', 'the call was aborted');
  if (error instanceof Anthropic.APIConnectionTimeoutError) return transportFailure('timeout', 'no response headers before the timeout');
  if (error instanceof Anthropic.APIConnectionError) return transportFailure('network', `connection failed: ${describeError(error)}`);
  if (error instanceof Anthropic.APIError) return classifyFailure({ ...anthropicFailureInfo(error), now: now?.() }, isAnthropicOverflow);
  return classifyOtherError(error, ctx);
}
