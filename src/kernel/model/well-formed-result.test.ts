/** A model's texts as the loop keeps them: half a surrogate pair made U+FFFD everywhere, a well-formed result untouched. */
import { describe, expect, it } from 'vitest';
import type { ModelResult } from './client.ts';
import { wellFormedData, wellFormedResult } from './well-formed-result.ts';

const HIGH = '\uD800';
const LOW = '\uDE00';

describe('wellFormedResult', () => {
  it('returns a well-formed result as it was, the same object (a pair whole is no repair)', () => {
    const result: ModelResult = { type: 'reply', content: [{ type: 'text', text: 'a 😀 b' }], text: 'a 😀 b', usage: { inputTokens: 1, outputTokens: 1 } };
    expect(wellFormedResult(result)).toBe(result);
  });

  it("repairs the text, the blocks, and the calls' ids, names, keys and nested arguments alike", () => {
    const args = { [`k${LOW}`]: [`v${HIGH}`, { deep: `x${LOW}y` }], n: 3, ok: true, none: null };
    const result: ModelResult = {
      type: 'tool_use',
      content: [
        { type: 'text', text: `look ${HIGH}` },
        { type: 'tool_call', id: `c${LOW}`, name: 'find', args },
      ],
      calls: [{ id: `c${LOW}`, name: 'find', args }],
      text: `look ${HIGH}`,
    };
    const fixed = wellFormedResult(result) as Extract<ModelResult, { type: 'tool_use' }>;
    const want = { 'k\uFFFD': ['v\uFFFD', { deep: 'x\uFFFDy' }], n: 3, ok: true, none: null };
    expect(fixed.text).toBe('look \uFFFD');
    expect(fixed.content).toEqual([
      { type: 'text', text: 'look \uFFFD' },
      { type: 'tool_call', id: 'c\uFFFD', name: 'find', args: want },
    ]);
    expect(fixed.calls).toEqual([{ id: 'c\uFFFD', name: 'find', args: want }]);
    expect(JSON.stringify(fixed).isWellFormed()).toBe(true);
    // The client's own result is not changed in place.
    expect(result.text).toBe(`look ${HIGH}`);
  });

  it("repairs a failure's message, and keeps what is not plain data as it is", () => {
    const failure: ModelResult = { type: 'transport_error', kind: 'network', message: `cut ${HIGH}` };
    expect(wellFormedResult(failure)).toEqual({ type: 'transport_error', kind: 'network', message: 'cut \uFFFD' });
    const date = new Date(0);
    expect(wellFormedData({ at: date, text: `t${LOW}` })).toEqual({ at: date, text: 't\uFFFD' });
  });
});
