/**
 * The contract cases that can run against a provider's real API: they need no
 * fault injection, only a real model (and, for auth, a key that is wrong).
 * Their checks allow for what a real model may say; replaying a recording
 * checks more: the same normalized result as when it was recorded.
 *
 * Not live: overflow (a prompt past the context window costs a lot), stream
 * faults, rate limits and overload (the API decides when those happen).
 */
import assert from 'node:assert/strict';
import type { ModelRequest, ModelResult, ToolSpec } from '../../src/kernel/index.ts';

export interface LiveCase {
  readonly id: string;
  readonly title: string;
  readonly request: ModelRequest;
  /** Send this key instead of the real one. */
  readonly apiKey?: string;
  check(result: ModelResult): void;
}

/** The key sent by the auth case: certainly wrong, and no secret. */
export const INVALID_API_KEY = 'loopgate-contract-invalid-key';

const weather: ToolSpec = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string', description: 'City name' } }, required: ['city'] },
};

const ask = (text: string) => [{ role: 'user' as const, content: [{ type: 'text' as const, text }] }];

export const LIVE_CASES: readonly LiveCase[] = [
  {
    id: 'live_reply',
    title: 'a plain question gets a reply with text and usage',
    request: { model: '', system: 'Answer with one word.', messages: ask('Reply with the word pong.'), tools: [], maxTokens: 512, timeoutMs: 60_000 },
    check(result) {
      assert.equal(result.type, 'reply', JSON.stringify(result));
      assert.ok(result.type === 'reply' && result.text.trim().length > 0, 'the reply has text');
      assert.ok(result.usage && result.usage.inputTokens > 0, 'usage is reported');
    },
  },
  {
    id: 'live_tool_call',
    title: 'a question that needs a tool gets tool_use with parsed arguments',
    request: {
      model: '',
      system: 'Use the tools you are given. Do not answer from memory.',
      messages: ask('What is the weather in Paris right now? Call get_weather.'),
      tools: [weather],
      maxTokens: 512,
      timeoutMs: 60_000,
    },
    check(result) {
      assert.equal(result.type, 'tool_use', JSON.stringify(result));
      if (result.type !== 'tool_use') return;
      assert.equal(result.calls[0]?.name, 'get_weather');
      const args = result.calls[0]?.args as { city?: unknown };
      assert.equal(typeof args?.city, 'string', 'the arguments are parsed into an object with a city');
    },
  },
  {
    id: 'live_tool_result_round_trip',
    title: 'a tool result sent back is accepted and answered',
    request: {
      model: '',
      system: 'Use the tools you are given.',
      messages: [
        ...ask('What is the weather in Paris right now?'),
        { role: 'assistant', content: [{ type: 'tool_call', id: 'call_live_1', name: 'get_weather', args: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', callId: 'call_live_1', status: 'ok', content: '18°C and sunny' }] },
      ],
      tools: [weather],
      maxTokens: 512,
      timeoutMs: 60_000,
    },
    check(result) {
      assert.equal(result.type, 'reply', JSON.stringify(result));
    },
  },
  {
    id: 'live_max_tokens',
    title: 'a long answer under a tiny token limit ends as max_tokens',
    request: { model: '', system: '', messages: ask('Count from 1 to 300, separated by commas.'), tools: [], maxTokens: 16, timeoutMs: 60_000 },
    check(result) {
      assert.equal(result.type, 'max_tokens', JSON.stringify(result));
      assert.ok(result.type === 'max_tokens' && !result.partialToolCall);
    },
  },
  {
    id: 'live_auth',
    title: 'a wrong API key ends as transport_error{auth}',
    apiKey: INVALID_API_KEY,
    request: { model: '', system: '', messages: ask('hi'), tools: [], maxTokens: 16, timeoutMs: 60_000 },
    check(result) {
      assert.ok(result.type === 'transport_error' && result.kind === 'auth', JSON.stringify(result));
    },
  },
];
