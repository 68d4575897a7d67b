/** OpenAI usage (Chat Completions or Responses field names) → normalized usage. */
import type { Usage } from '../../src/kernel/index.ts';
import { tokenCount } from '../shared/token-count.ts';

interface UsageLike {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  input_tokens?: unknown;
  output_tokens?: unknown;
  prompt_tokens_details?: { cached_tokens?: unknown } | null;
  input_tokens_details?: { cached_tokens?: unknown; cache_write_tokens?: unknown } | null;
  completion_tokens_details?: { reasoning_tokens?: unknown } | null;
  output_tokens_details?: { reasoning_tokens?: unknown } | null;
}

// A count the wire sends that is not one (negative, fractional) is left out; one past the safe integers reads as
// Number.MAX_SAFE_INTEGER, never as unsent (shared/token-count.ts).
const num = tokenCount;

export function openAIUsage(raw: unknown): Usage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const u = raw as UsageLike;
  const inputTokens = num(u.prompt_tokens) ?? num(u.input_tokens);
  const outputTokens = num(u.completion_tokens) ?? num(u.output_tokens);
  if (inputTokens === undefined && outputTokens === undefined) return undefined;
  const cacheReadTokens = num(u.prompt_tokens_details?.cached_tokens) ?? num(u.input_tokens_details?.cached_tokens);
  const cacheWriteTokens = num(u.input_tokens_details?.cache_write_tokens);
  const reasoningTokens = num(u.completion_tokens_details?.reasoning_tokens) ?? num(u.output_tokens_details?.reasoning_tokens);
  return {
    inputTokens: inputTokens ?? 0,
    outputTokens: outputTokens ?? 0,
    ...(cacheReadTokens !== undefined ? { cacheReadTokens } : {}),
    ...(cacheWriteTokens !== undefined ? { cacheWriteTokens } : {}),
    ...(reasoningTokens !== undefined ? { reasoningTokens } : {}),
  };
}
