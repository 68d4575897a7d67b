import { describe, expect, it } from 'vitest';
import { mergeAnthropicUsage } from './usage.ts';

describe('Anthropic usage, normalized', () => {
  it('counts cached input in inputTokens: Anthropic reports the uncached rest apart', () => {
    const usage = mergeAnthropicUsage(undefined, { input_tokens: 200, cache_read_input_tokens: 1000, cache_creation_input_tokens: 50, output_tokens: 1 });
    expect(usage).toEqual({ inputTokens: 1250, outputTokens: 1, cacheReadTokens: 1000, cacheWriteTokens: 50 });
  });

  it('keeps the total when a later report (message_delta) sends only the output', () => {
    const start = mergeAnthropicUsage(undefined, { input_tokens: 200, cache_read_input_tokens: 1000, output_tokens: 1 });
    expect(mergeAnthropicUsage(start, { output_tokens: 340 })).toEqual({ inputTokens: 1200, outputTokens: 340, cacheReadTokens: 1000 });
  });

  it('takes a later report of the cache over the earlier one without counting it twice', () => {
    const start = mergeAnthropicUsage(undefined, { input_tokens: 200, cache_read_input_tokens: 1000, output_tokens: 1 });
    expect(mergeAnthropicUsage(start, { input_tokens: 200, cache_read_input_tokens: 900, output_tokens: 9 })).toEqual({
      inputTokens: 1100,
      outputTokens: 9,
      cacheReadTokens: 900,
    });
  });

  it('without cache fields, input is input_tokens', () => {
    expect(mergeAnthropicUsage(undefined, { input_tokens: 3, output_tokens: 4 })).toEqual({ inputTokens: 3, outputTokens: 4 });
  });
});
