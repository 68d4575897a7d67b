/** OpenAI SDK errors → normalized results (Chat Completions and Responses alike). */
import OpenAI from 'openai';
import type { ModelResult } from '../../src/kernel/index.ts';
import type { CallContext } from '../shared/call-runner.ts';
import { describeError } from '../shared/call-runner.ts';
import { classifyFailure, type FailureInfo } from '../shared/failure.ts';
import { transportFailure } from '../shared/results.ts';
import { classifyOtherError } from '../shared/thrown.ts';

const OVERFLOW_PATTERNS = [/maximum context length/i, /exceeds the context window/i, /context[_ ]length[_ ]exceeded/i];

export function isOpenAIOverflow(info: FailureInfo): boolean {
  if (info.status !== undefined && info.status !== 400) return false;
  if (info.code === 'context_length_exceeded') return true;
  return OVERFLOW_PATTERNS.some((pattern) => pattern.test(info.message));
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function openAIFailureInfo(error: InstanceType<typeof OpenAI.APIError>): FailureInfo {
  const body = error.error as { message?: unknown; type?: unknown; code?: unknown } | undefined;
  return {
    status: error.status,
    headers: error.headers,
    type: str(error.type) ?? str(body?.type),
    code: str(error.code) ?? str(body?.code),
    message: str(body?.message) ?? error.message,
  };
}

export function classifyOpenAIError(error: unknown, ctx: CallContext, now?: () => number): ModelResult {
  if (error instanceof OpenAI.APIUserAbortError) return transportFailure('aborted', 'the call was aborted');
  if (error instanceof OpenAI.APIConnectionTimeoutError) return transportFailure('timeout', 'no response headers before the timeout');
  if (error instanceof OpenAI.APIConnectionError) return transportFailure('network', `connection failed: ${describeError(error)}`);
  if (error instanceof OpenAI.APIError) return classifyFailure({ ...openAIFailureInfo(error), now: now?.() }, isOpenAIOverflow);
  return classifyOtherError(error, ctx);
}
