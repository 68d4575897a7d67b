import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/kernel/index.ts';
import { toAnthropicBody } from '../anthropic/request.ts';
import { toChatBody } from '../openai-chat/request.ts';
import { toResponsesBody } from '../openai-responses/request.ts';
import { providerOfPath, requestProblems } from './request-rules.ts';

/** A conversation with a tool round: what every adapter must map into a body its provider accepts. */
const request: ModelRequest = {
  model: 'm',
  system: 'Be brief.',
  maxTokens: 100,
  tools: [{ name: 'lookup_order', description: 'Looks an order up.', inputSchema: { type: 'object', properties: { id: { type: 'string' } } } }],
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'Where is ORD-1?' }] },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_call', id: 'a', name: 'lookup_order', args: { id: 'ORD-1' } },
        { type: 'tool_call', id: 'b', name: 'lookup_order', args: { id: 'ORD-2' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', callId: 'a', status: 'ok', content: 'shipped' },
        { type: 'tool_result', callId: 'b', status: 'failed', content: 'not found' },
        { type: 'text', text: 'And the other?' },
      ],
    },
  ],
};

describe('what the wire fakes refuse', () => {
  it('accepts what the adapters send for a conversation with a tool round', () => {
    expect(requestProblems('anthropic', toAnthropicBody(request, 'claude'))).toEqual([]);
    expect(requestProblems('openai-chat', toChatBody(request, 'gpt'))).toEqual([]);
    expect(requestProblems('openai-responses', toResponsesBody(request, 'gpt'))).toEqual([]);
  });

  it('refuses a missing model, a bad role, a result without its call and a call without its result', () => {
    const anthropic = toAnthropicBody(request, 'claude');
    expect(requestProblems('anthropic', { ...anthropic, model: '' })).toEqual([expect.stringMatching(/^model:/)]);
    expect(requestProblems('anthropic', { ...anthropic, messages: anthropic.messages.slice(0, 2) })).toEqual([
      expect.stringMatching(/without their tool_result/),
    ]);
    expect(requestProblems('anthropic', { ...anthropic, messages: [anthropic.messages[0], anthropic.messages[2]] })).toEqual([
      expect.stringMatching(/unexpected tool_use_id/),
    ]);
    const chat = toChatBody(request, 'gpt');
    expect(requestProblems('openai-chat', { ...chat, messages: chat.messages.filter((m) => m.role !== 'tool') })).toEqual([
      expect.stringMatching(/must be followed by tool messages/),
    ]);
    expect(requestProblems('openai-chat', { ...chat, messages: [{ role: 'human', content: 'hi' }] })).toEqual([expect.stringMatching(/role/)]);
    const responses = toResponsesBody(request, 'gpt');
    const input = responses.input as { type?: string; role?: string }[];
    expect(requestProblems('openai-responses', { ...responses, input: input.map((i) => (i.role === 'user' ? { ...i, role: '' } : i)) })).toEqual([
      expect.stringMatching(/role/),
      expect.stringMatching(/role/),
    ]);
    expect(requestProblems('openai-responses', { ...responses, input: input.filter((i) => i.type !== 'function_call_output') })).toEqual([
      expect.stringMatching(/no tool output found/),
    ]);
  });

  it('anthropic: refuses an empty text block, and a message whose text is only whitespace (as the real API: 400)', () => {
    const body = (messages: unknown[]) => ({ model: 'claude', max_tokens: 10, messages });
    expect(requestProblems('anthropic', body([{ role: 'user', content: '  \n' }]))).toEqual([
      'messages.0: text content blocks must contain non-whitespace text',
    ]);
    expect(requestProblems('anthropic', body([{ role: 'user', content: [{ type: 'text', text: '' }] }]))).toEqual([
      'messages.0.content.0.text: text content blocks must be non-empty',
    ]);
    const call = { type: 'tool_use', id: 't1', name: 'look', input: {} };
    const result = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] };
    expect(
      requestProblems('anthropic', body([{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'text', text: '\n\n' }, call] }, result])),
    ).toEqual(['messages.1: text content blocks must contain non-whitespace text']);
    // Whitespace beside real text is accepted; so is a message of calls or results alone.
    expect(
      requestProblems(
        'anthropic',
        body([
          {
            role: 'user',
            content: [
              { type: 'text', text: ' ' },
              { type: 'text', text: 'hi' },
            ],
          },
        ]),
      ),
    ).toEqual([]);
    expect(requestProblems('anthropic', body([{ role: 'user', content: 'hi' }, { role: 'assistant', content: [call] }, result]))).toEqual([]);
  });

  it('refuses a strict function tool whose schema strict mode cannot take (OpenAI, both protocols)', () => {
    const loose = { type: 'object', properties: { id: { type: 'string' }, limit: { type: 'integer' } }, required: ['id'] };
    const tight = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false };
    const responses = (schema: object, strict: boolean) => ({
      model: 'gpt',
      input: 'hi',
      tools: [{ type: 'function', name: 'lookup_order', description: 'd', parameters: schema, strict }],
    });
    expect(requestProblems('openai-responses', responses(loose, false))).toEqual([]);
    expect(requestProblems('openai-responses', responses(tight, true))).toEqual([]);
    expect(requestProblems('openai-responses', responses(loose, true))).toEqual([
      expect.stringMatching(/'additionalProperties' is required to be supplied and to be false/),
      expect.stringMatching(/Missing 'limit'/),
    ]);
    const chat = (schema: object, strict: boolean) => ({
      model: 'gpt',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'lookup_order', description: 'd', parameters: schema, strict } }],
    });
    expect(requestProblems('openai-chat', chat(tight, true))).toEqual([]);
    expect(requestProblems('openai-chat', chat(loose, true))).toHaveLength(2);
  });

  it('knows each provider by its path', () => {
    expect(providerOfPath('/v1/messages')).toBe('anthropic');
    expect(providerOfPath('/v1/chat/completions?x=1')).toBe('openai-chat');
    expect(providerOfPath('/v1/responses')).toBe('openai-responses');
    expect(providerOfPath('/v1/models')).toBeUndefined();
  });
});
