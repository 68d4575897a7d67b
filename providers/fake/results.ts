/**
 * Builders for normalized results, for scripts and tests. They produce exactly
 * what an adapter would produce for the same model behaviour.
 */
import type { AssistantBlock, ModelResult, ToolCall, TransportErrorKind, Usage } from '../../src/kernel/index.ts';

const DEFAULT_USAGE: Usage = { inputTokens: 10, outputTokens: 5 };

export function reply(text: string, usage: Usage = DEFAULT_USAGE): ModelResult {
  return { type: 'reply', content: text ? [{ type: 'text', text }] : [], text, usage, stopReason: 'end_turn' };
}

export function toolUse(calls: readonly ToolCall[], text = '', usage: Usage = DEFAULT_USAGE): ModelResult {
  const content: AssistantBlock[] = [];
  if (text) content.push({ type: 'text', text });
  for (const c of calls) content.push({ type: 'tool_call', id: c.id, name: c.name, args: c.args });
  return { type: 'tool_use', content, calls, text, usage, stopReason: 'tool_use' };
}

export function call(id: string, name: string, args: unknown = {}): ToolCall {
  return { id, name, args };
}

export function maxTokens(text: string, partialToolCall = false, usage: Usage = DEFAULT_USAGE): ModelResult {
  return { type: 'max_tokens', content: text ? [{ type: 'text', text }] : [], text, partialToolCall, usage, stopReason: 'max_tokens' };
}

export function refusal(text = '', usage: Usage = DEFAULT_USAGE): ModelResult {
  return { type: 'refusal', text, usage, stopReason: 'refusal' };
}

export function overflow(at: 'request' | 'generation' = 'request', message = 'prompt is too long'): ModelResult {
  return { type: 'context_window_exceeded', at, content: [], message };
}

export function unknownStop(stopReason: string, text = ''): ModelResult {
  return { type: 'unknown', stopReason, content: text ? [{ type: 'text', text }] : [], text, usage: DEFAULT_USAGE };
}

export function transportError(kind: TransportErrorKind, extra: { status?: number; retryAfterMs?: number; message?: string } = {}): ModelResult {
  return {
    type: 'transport_error',
    kind,
    message: extra.message ?? kind.replace('_', ' '),
    ...(extra.status !== undefined ? { status: extra.status } : {}),
    ...(extra.retryAfterMs !== undefined ? { retryAfterMs: extra.retryAfterMs } : {}),
  };
}
