/** Anthropic usage → normalized usage. Cache fields are kept when sent (also when 0). */
import type { Usage } from '../../src/kernel/index.ts';

export interface AnthropicUsageLike {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** Merges a later usage report over an earlier one (message_delta over message_start). */
export function mergeAnthropicUsage(previous: Usage | undefined, next: AnthropicUsageLike | null | undefined): Usage | undefined {
  if (!next || typeof next !== 'object') return previous;
  const pick = (value: number | null | undefined, fallback: number | undefined) => (typeof value === 'number' ? value : fallback);
  const inputTokens = pick(next.input_tokens, previous?.inputTokens);
  const outputTokens = pick(next.output_tokens, previous?.outputTokens);
  if (inputTokens === undefined && outputTokens === undefined) return previous;
  const cacheReadTokens = pick(next.cache_read_input_tokens, previous?.cacheReadTokens);
  const cacheWriteTokens = pick(next.cache_creation_input_tokens, previous?.cacheWriteTokens);
  return {
    inputTokens: inputTokens ?? 0,
    outputTokens: outputTokens ?? 0,
    ...(cacheReadTokens !== undefined ? { cacheReadTokens } : {}),
    ...(cacheWriteTokens !== undefined ? { cacheWriteTokens } : {}),
  };
}
