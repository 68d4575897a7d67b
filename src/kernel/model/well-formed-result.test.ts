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

  // Each field the loop reads, alone ill-formed: found and repaired (the check goes field by field, not by a generic walk).
  const bad = `x${HIGH}`;
  const argsOf = (value: unknown) => ({ q: value });
  const rows: [string, Record<string, unknown>][] = [
    ['reply text', { type: 'reply', content: [], text: bad }],
    ['stop reason', { type: 'unknown', content: [], text: '', stopReason: bad }],
    ['failure message', { type: 'transport_error', kind: 'network', message: bad }],
    ['unknown failure kind', { type: 'transport_error', kind: bad, message: 'm' }],
    ['context message', { type: 'context_window_exceeded', at: 'request', content: [], message: bad }],
    ['text block', { type: 'max_tokens', content: [{ type: 'text', text: bad }], text: '', partialToolCall: false }],
    ['block id', { type: 'reply', content: [{ type: 'tool_call', id: bad, name: 'n', args: {} }], text: '' }],
    ['block name', { type: 'reply', content: [{ type: 'tool_call', id: 'i', name: bad, args: {} }], text: '' }],
    ['block repeatOf', { type: 'reply', content: [{ type: 'tool_call', id: 'i', name: 'n', args: {}, repeatOf: bad }], text: '' }],
    ['block argument key', { type: 'reply', content: [{ type: 'tool_call', id: 'i', name: 'n', args: { [bad]: 1 } }], text: '' }],
    ['block argument deep', { type: 'reply', content: [{ type: 'tool_call', id: 'i', name: 'n', args: argsOf([{ r: bad }]) }], text: '' }],
    ['call id', { type: 'tool_use', content: [], calls: [{ id: bad, name: 'n', args: {} }], text: '' }],
    ['call name', { type: 'tool_use', content: [], calls: [{ id: 'i', name: bad, args: {} }], text: '' }],
    ['call raw arguments', { type: 'tool_use', content: [], calls: [{ id: 'i', name: 'n', rawArgs: bad }], text: '' }],
    [
      "call arguments other than its block's",
      {
        type: 'tool_use',
        content: [{ type: 'tool_call', id: 'i', name: 'n', args: argsOf('ok') }],
        calls: [{ id: 'i', name: 'n', args: argsOf(bad) }],
        text: '',
      },
    ],
    ['refusal details', { type: 'refusal', text: 'no', details: { why: bad } }],
    ['a type the loop does not know', { type: 'later', extra: [bad] }],
  ];
  it.each(rows)('finds half a pair in the %s alone', (_name, given) => {
    const fixed = wellFormedResult(given as unknown as ModelResult);
    expect(fixed).not.toBe(given);
    expect(JSON.stringify(fixed).isWellFormed()).toBe(true);
    expect(JSON.stringify(fixed)).toContain('x\uFFFD');
  });

  // A field the result's shape check leaves alone for its type (content on a refusal, calls on a reply) may hold
  // anything: read past, never thrown on — a throw here became "the client rejected" and a retry (stop 63 review, MED).
  it.each([
    ['a refusal with a hole in content', { type: 'refusal', text: 'I cannot help with that.', content: [undefined] }],
    ['a reply with a null call', { type: 'reply', content: [], text: 'Hi.', calls: [null] }],
    ['a failure with a null block', { type: 'transport_error', kind: 'rate_limited', message: 'slow down', content: [null, 3] }],
  ])('returns %s as it was, without throwing', (_name, given) => {
    expect(wellFormedResult(given as unknown as ModelResult)).toBe(given);
  });
});
