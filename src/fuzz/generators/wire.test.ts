/**
 * The wire generator reaches what an adapter must translate and a planted bug
 * would hide in (probe 31): Anthropic usage with cache writes
 * (`cache_creation_input_tokens`), and retry-after on 5xx answers, not only on
 * 429s — while never asking a provider for what its wire cannot say.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProviderStep } from '../../harness/scenario/schema.ts';
import { PROBE_TOOL } from './tools.ts';
import { wireCaseArb } from './wire.ts';

const cases = fc.sample(wireCaseArb([PROBE_TOOL]), { numRuns: 2_000, seed: 31 });
const steps = (provider?: string): ProviderStep[] =>
  cases.filter((c) => provider === undefined || c.provider === provider).flatMap((c) => [...c.script, ...(c.fallback ?? [])]);

describe('wireCaseArb', () => {
  it('gives Anthropic replies and tool calls cache writes and reads, and OpenAI no cache writes', () => {
    const anthropic = steps('anthropic').filter((s) => s.reply !== undefined || s.tool_use !== undefined);
    expect(anthropic.filter((s) => (s.usage?.cacheWrite ?? 0) > 0).length).toBeGreaterThan(50);
    expect(anthropic.filter((s) => (s.usage?.cacheRead ?? 0) > 0).length).toBeGreaterThan(50);
    for (const s of anthropic) if (s.usage) expect(s.usage.input).toBeGreaterThanOrEqual((s.usage.cacheRead ?? 0) + (s.usage.cacheWrite ?? 0));
    for (const provider of ['openai-chat', 'openai-responses']) expect(steps(provider).filter((s) => s.usage?.cacheWrite !== undefined)).toEqual([]);
  });

  it('sends retry-after on overloads (503, 529) and server errors as HTTP answers, never inside a stream', () => {
    const errors = steps().flatMap((s) => (s.error ? [s.error] : []));
    const waited = (kind: string) => errors.filter((e) => e.kind === kind && e.retryAfterMs !== undefined);
    expect(waited('overloaded').length).toBeGreaterThan(20);
    expect(new Set(waited('overloaded').map((e) => e.status ?? 'default'))).toEqual(new Set([503, 529, 'default']));
    expect(waited('server_error').length).toBeGreaterThan(20);
    expect(errors.filter((e) => e.midStream && e.retryAfterMs !== undefined)).toEqual([]);
  });
});
