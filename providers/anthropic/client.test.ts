import { afterAll, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/kernel/model/client.ts';
import { jsonPlan, streamPlan, sseFrame } from '../wire-fakes/plan.ts';
import { anthropicWire } from '../wire-fakes/anthropic.ts';
import { upToNth } from '../wire-fakes/faults.ts';
import { acquireWireFake, type WireScenario } from '../wire-fakes/server.ts';
import type { WireTurn } from '../wire-fakes/turn.ts';
import { createAnthropicClient, type AnthropicClientOptions } from './client.ts';

const fake = acquireWireFake();
afterAll(() => fake.release());

const reply: WireTurn = { blocks: [{ type: 'text', text: 'Done.' }], stop: 'end', usage: { input: 5, output: 2 } };

function clientFor(scenario: WireScenario, options: Partial<AnthropicClientOptions> = {}) {
  return createAnthropicClient({ apiKey: 'sk-ant-test-key-000000000000', baseURL: scenario.baseURL('anthropic'), model: 'claude-haiku-4-5', ...options });
}

const conversation: ModelRequest = {
  model: 'claude-sonnet-4-6',
  system: 'You are terse.',
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'Weather and time in Paris?' }] },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_call', id: 'toolu_a', name: 'get_weather', args: { city: 'Paris' } },
        { type: 'tool_call', id: 'toolu_b', name: 'get_time', args: { timezone: 'Europe/Paris' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Also: be brief.' },
        { type: 'tool_result', callId: 'toolu_a', status: 'ok', content: '18°C, clear' },
        { type: 'tool_result', callId: 'toolu_b', status: 'failed', content: '{"error_code":"tz_unknown"}' },
      ],
    },
    { role: 'user', content: [{ type: 'text', text: 'Thanks.' }] },
  ],
  tools: [
    { name: 'get_weather', description: 'Weather for a city.', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
    { name: 'get_time', description: 'Time in a zone.', inputSchema: { type: 'object', properties: { timezone: { type: 'string' } } } },
  ],
  maxTokens: 512,
  temperature: 0.2,
};

describe('createAnthropicClient: the request on the wire', () => {
  it('sends system, messages, tool results in call order (before text), tool schemas, stream flag and max tokens', async () => {
    const scenario = fake.scenario(streamPlan(anthropicWire.streamFrames(reply)));
    const result = await clientFor(scenario).call(conversation);
    expect(result.type).toBe('reply');
    expect(scenario.requests).toHaveLength(1);
    const [sent] = scenario.requests;
    expect(sent!.method).toBe('POST');
    expect(sent!.path).toBe('/v1/messages');
    // SDK 1.x sends the key as a bearer token; the fake redacts what it records.
    expect(sent!.headers['authorization'] ?? sent!.headers['x-api-key']).toBe('[REDACTED]');
    expect(JSON.stringify(sent!.headers)).not.toContain('sk-ant-test-key');
    expect(sent!.headers['anthropic-version']).toBeDefined();
    expect(sent!.body).toEqual({
      model: 'claude-sonnet-4-6',
      max_tokens: 512,
      system: 'You are terse.',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather and time in Paris?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'toolu_a', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'toolu_b', name: 'get_time', input: { timezone: 'Europe/Paris' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_a', content: '18°C, clear' },
            { type: 'tool_result', tool_use_id: 'toolu_b', content: '{"error_code":"tz_unknown"}', is_error: true },
            { type: 'text', text: 'Also: be brief.' },
          ],
        },
        { role: 'user', content: [{ type: 'text', text: 'Thanks.' }] },
      ],
      tools: [
        {
          name: 'get_weather',
          description: 'Weather for a city.',
          input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
        { name: 'get_time', description: 'Time in a zone.', input_schema: { type: 'object', properties: { timezone: { type: 'string' } } } },
      ],
      temperature: 0.2,
      stream: true,
    });
  });

  it('uses the client model when the request names none, and omits an empty system prompt', async () => {
    const scenario = fake.scenario(streamPlan(anthropicWire.streamFrames(reply)));
    await clientFor(scenario).call({ model: '', system: '', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [], maxTokens: 64 });
    expect(scenario.requests[0]!.body).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: 64,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      stream: true,
    });
  });

  it('wraps arguments that are not an object, since tool_use input must be one', async () => {
    const scenario = fake.scenario(streamPlan(anthropicWire.streamFrames(reply)));
    await clientFor(scenario).call({
      ...conversation,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        { role: 'assistant', content: [{ type: 'tool_call', id: 't1', name: 'get_weather', args: 'not json' }] },
        { role: 'user', content: [{ type: 'tool_result', callId: 't1', status: 'unknown', content: 'interrupted' }] },
      ],
    });
    const body = scenario.requests[0]!.body as { messages: { content: unknown[] }[] };
    expect(body.messages[1]!.content).toEqual([{ type: 'tool_use', id: 't1', name: 'get_weather', input: { value: 'not json' } }]);
    expect(body.messages[2]!.content).toEqual([{ type: 'tool_result', tool_use_id: 't1', content: 'interrupted', is_error: true }]);
  });

  it('hands the exact body to onRequest, and sends non-streaming requests when asked', async () => {
    const scenario = fake.scenario(jsonPlan(200, anthropicWire.completeBody(reply)));
    const seen: unknown[] = [];
    const result = await clientFor(scenario, { stream: false, onRequest: (body) => seen.push(body) }).call(conversation);
    expect(result).toMatchObject({ type: 'reply', text: 'Done.', usage: { inputTokens: 5, outputTokens: 2 } });
    expect(seen).toEqual([scenario.requests[0]!.body]);
    expect((scenario.requests[0]!.body as { stream?: boolean }).stream).toBeUndefined();
  });
});

describe('createAnthropicClient: endings', () => {
  it('never retries inside the SDK: one request per call, whatever the failure', async () => {
    for (const kind of ['server_error', 'overloaded', 'rate_limited'] as const) {
      const answer = anthropicWire.errorAnswer(kind);
      const scenario = fake.scenario(jsonPlan(answer.status, answer.body));
      const result = await clientFor(scenario).call(conversation);
      expect(result.type).toBe('transport_error');
      expect(scenario.requests).toHaveLength(1);
    }
  });

  it('times out while waiting for response headers', async () => {
    const scenario = fake.scenario({ kind: 'hang' });
    const result = await clientFor(scenario).call({ ...conversation, timeoutMs: 100 });
    expect(result).toMatchObject({ type: 'transport_error', kind: 'timeout' });
  });

  it('aborts while waiting for response headers', async () => {
    const scenario = fake.scenario({ kind: 'hang' });
    const controller = new AbortController();
    const pending = clientFor(scenario).call({ ...conversation, signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    expect(await pending).toMatchObject({ type: 'transport_error', kind: 'aborted' });
  });

  it.each([
    ['prompt is too long: 215438 tokens > 200000 maximum', 400],
    ['input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again', 400],
  ])('reads "%s" (%i) as overflow at request', async (message, status) => {
    const scenario = fake.scenario(jsonPlan(status, { type: 'error', error: { type: 'invalid_request_error', message } }));
    expect(await clientFor(scenario).call(conversation)).toEqual({ type: 'context_window_exceeded', at: 'request', content: [], message });
  });

  it('reads a 413 request_too_large as overflow at request', async () => {
    const scenario = fake.scenario(
      jsonPlan(413, { type: 'error', error: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' } }),
    );
    expect(await clientFor(scenario).call(conversation)).toMatchObject({ type: 'context_window_exceeded', at: 'request' });
  });

  it('does not read other 400s as overflow', async () => {
    const scenario = fake.scenario(
      jsonPlan(400, { type: 'error', error: { type: 'invalid_request_error', message: 'tools.0.name: String should match pattern' } }),
    );
    expect(await clientFor(scenario).call(conversation)).toMatchObject({ type: 'transport_error', kind: 'invalid_request', status: 400 });
  });

  it('reads an overflow error event inside the stream as overflow', async () => {
    const frames = anthropicWire.streamFrames(reply).slice(0, 2);
    frames.push(sseFrame('error', { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 1 tokens > 0 maximum' } }, 'error'));
    const scenario = fake.scenario(streamPlan(frames));
    expect(await clientFor(scenario).call(conversation)).toMatchObject({ type: 'context_window_exceeded', at: 'request' });
  });

  it('ends pause_turn (server tools, not used by loopgate) as unknown, naming it', async () => {
    const scenario = fake.scenario(streamPlan(anthropicWire.streamFrames({ ...reply, stop: { unknown: 'pause_turn' } })));
    expect(await clientFor(scenario).call(conversation)).toMatchObject({ type: 'unknown', stopReason: 'pause_turn', text: 'Done.' });
  });

  it('flags a trailing tool_use in a non-streamed max_tokens message as partial, never executable', async () => {
    const body = {
      id: 'msg_x',
      type: 'message',
      role: 'assistant',
      model: 'claude-haiku-4-5',
      content: [
        { type: 'text', text: 'Searching' },
        { type: 'tool_use', id: 'toolu_cut', name: 'search', input: { query: 'wea' } },
      ],
      stop_reason: 'max_tokens',
      usage: { input_tokens: 3, output_tokens: 4 },
    };
    const scenario = fake.scenario(jsonPlan(200, body));
    const result = await clientFor(scenario, { stream: false }).call(conversation);
    expect(result).toEqual({
      type: 'max_tokens',
      content: [{ type: 'text', text: 'Searching' }],
      text: 'Searching',
      partialToolCall: true,
      usage: { inputTokens: 3, outputTokens: 4 },
      stopReason: 'max_tokens',
    });
  });

  it('treats a stream whose events come before message_start as malformed', async () => {
    const frames = anthropicWire.streamFrames(reply).filter((f) => f.tag !== 'start');
    const scenario = fake.scenario(streamPlan(frames));
    expect(await clientFor(scenario).call(conversation)).toMatchObject({ type: 'transport_error', kind: 'malformed_stream' });
  });

  it('keeps the usage message_start reported when the connection drops mid-stream', async () => {
    const frames = upToNth(anthropicWire.streamFrames({ ...reply, usage: { input: 900, output: 2 } }), 'text_delta');
    const scenario = fake.scenario(streamPlan(frames, 'reset'));
    expect(await clientFor(scenario).call(conversation)).toMatchObject({
      type: 'transport_error',
      kind: 'network',
      usage: { inputTokens: 900, outputTokens: 1 },
    });
  });

  it('applies defaultTimeoutMs when the request sets none', async () => {
    const scenario = fake.scenario({ kind: 'hang' });
    expect(await clientFor(scenario, { defaultTimeoutMs: 80 }).call(conversation)).toMatchObject({ type: 'transport_error', kind: 'timeout' });
  });
});
