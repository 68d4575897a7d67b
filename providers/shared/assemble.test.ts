import { describe, expect, it } from 'vitest';
import type { Collected } from './assemble.ts';
import { finishResult, isPartialCall } from './assemble.ts';

const usage = { inputTokens: 1, outputTokens: 2 };

function collected(blocks: Collected['blocks']): Collected {
  return { blocks, usage };
}

describe('isPartialCall', () => {
  const call = (argsText: string, finished = true) => ({ type: 'tool_call' as const, id: 'c', name: 'n', argsText, finished });

  it('is partial when the provider never finished the call', () => {
    expect(isPartialCall(call('{"a":1}', false), 'max_tokens', true)).toBe(true);
    expect(isPartialCall(call('{"a":1}', false), 'tool_use', true)).toBe(true);
  });

  it('is partial when the token limit cut the last call mid-JSON or before any argument text', () => {
    expect(isPartialCall(call('{"a":'), 'max_tokens', true)).toBe(true);
    expect(isPartialCall(call(''), 'max_tokens', true)).toBe(true);
  });

  it('is not partial for complete JSON, for earlier calls, or under a normal stop', () => {
    expect(isPartialCall(call('{"a":1}'), 'max_tokens', true)).toBe(false);
    expect(isPartialCall(call('{"a":'), 'max_tokens', false)).toBe(false);
    expect(isPartialCall(call('{"a":'), 'tool_use', true)).toBe(false);
    expect(isPartialCall(call(''), 'tool_use', true)).toBe(false);
  });
});

describe('finishResult', () => {
  it('builds tool_use with calls in order, lenient-parsed arguments and raw text kept', () => {
    const result = finishResult(
      collected([
        { type: 'text', text: 'Hi' },
        { type: 'tool_call', id: 'a', name: 'x', argsText: '{"k":1,}', finished: true },
        { type: 'tool_call', id: 'b', name: 'y', argsText: '', finished: true },
      ]),
      { category: 'tool_use', raw: 'tool_use' },
    );
    expect(result).toEqual({
      type: 'tool_use',
      content: [
        { type: 'text', text: 'Hi' },
        { type: 'tool_call', id: 'a', name: 'x', args: { k: 1 } },
        { type: 'tool_call', id: 'b', name: 'y', args: {} },
      ],
      calls: [
        { id: 'a', name: 'x', args: { k: 1 }, rawArgs: '{"k":1,}' },
        { id: 'b', name: 'y', args: {}, rawArgs: '' },
      ],
      text: 'Hi',
      usage,
      stopReason: 'tool_use',
    });
  });

  it('turns a reply that carries calls into tool_use, and tool_use without calls into unknown', () => {
    expect(finishResult(collected([{ type: 'tool_call', id: 'a', name: 'x', argsText: '{}', finished: true }]), { category: 'reply', raw: 'stop' }).type).toBe(
      'tool_use',
    );
    expect(finishResult(collected([{ type: 'text', text: 'no call' }]), { category: 'tool_use', raw: 'tool_use' })).toMatchObject({
      type: 'unknown',
      stopReason: 'tool_use',
      text: 'no call',
    });
  });

  it('keeps complete calls and drops the cut one under max_tokens', () => {
    const result = finishResult(
      collected([
        { type: 'tool_call', id: 'a', name: 'x', argsText: '{"k":1}', finished: true },
        { type: 'tool_call', id: 'b', name: 'y', argsText: '{"q":"wea', finished: true },
      ]),
      { category: 'max_tokens', raw: 'max_tokens' },
    );
    expect(result).toMatchObject({ type: 'max_tokens', partialToolCall: true, content: [{ type: 'tool_call', id: 'a' }] });
    expect(result.type === 'max_tokens' && result.content).toHaveLength(1);
  });

  it('calls an ending with an unfinished call under a normal stop a malformed stream, never a tool_use', () => {
    const result = finishResult(collected([{ type: 'tool_call', id: 'a', name: 'x', argsText: '{"k"', finished: false }]), {
      category: 'tool_use',
      raw: 'tool_use',
    });
    expect(result).toMatchObject({ type: 'transport_error', kind: 'malformed_stream', usage });
  });

  it('keeps refusal text and details, and overflow content and usage', () => {
    expect(finishResult({ blocks: [], refusalText: 'No.', usage }, { category: 'refusal', raw: 'refusal', details: { why: 1 } })).toEqual({
      type: 'refusal',
      text: 'No.',
      details: { why: 1 },
      usage,
      stopReason: 'refusal',
    });
    expect(finishResult(collected([{ type: 'text', text: 'So far' }]), { category: 'overflow', raw: 'model_context_window_exceeded' })).toMatchObject({
      type: 'context_window_exceeded',
      at: 'generation',
      content: [{ type: 'text', text: 'So far' }],
      usage,
    });
  });
});
