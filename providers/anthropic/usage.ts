/**
 * Anthropic usage → normalized usage. Cache fields are kept when sent (also when 0).
 *
 * Normalized `inputTokens` counts every input token of the request, cached or
 * not (as OpenAI's `prompt_tokens` does, and as token budgets and prices read
 * it). Anthropic reports the uncached rest apart: `input_tokens` leaves out
 * `cache_read_input_tokens` and `cache_creation_input_tokens`, so the three
 * are added here.
 */
import type { Usage } from '../../src/kernel/index.ts';
import { tokenCount } from '../shared/token-count.ts';

export interface AnthropicUsageLike {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** Merges a later usage report over an earlier one (message_delta over message_start). */
export function mergeAnthropicUsage(previous: Usage | undefined, next: AnthropicUsageLike | null | undefined): Usage | undefined {
  if (!next || typeof next !== 'object') return previous;
  // A count the wire sends that is not one (negative, fractional) counts as not sent; one past the safe integers reads as
  // Number.MAX_SAFE_INTEGER, never as unsent (shared/token-count.ts).
  const pick = (value: number | null | undefined, fallback: number | undefined) => tokenCount(value) ?? fallback;
  // What `previous` counted as uncached input (its total less its cache fields).
  const previousUncached = previous ? previous.inputTokens - (previous.cacheReadTokens ?? 0) - (previous.cacheWriteTokens ?? 0) : undefined;
  const uncached = pick(next.input_tokens, previousUncached);
  const outputTokens = pick(next.output_tokens, previous?.outputTokens);
  if (uncached === undefined && outputTokens === undefined) return previous;
  const cacheReadTokens = pick(next.cache_read_input_tokens, previous?.cacheReadTokens);
  const cacheWriteTokens = pick(next.cache_creation_input_tokens, previous?.cacheWriteTokens);
  return {
    inputTokens: (uncached ?? 0) + (cacheReadTokens ?? 0) + (cacheWriteTokens ?? 0),
    outputTokens: outputTokens ?? 0,
    ...(cacheReadTokens !== undefined ? { cacheReadTokens } : {}),
    ...(cacheWriteTokens !== undefined ? { cacheWriteTokens } : {}),
  };
}
