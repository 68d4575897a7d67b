import { afterAll, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/kernel/model/client.ts';
import { jsonPlan, sseFrame, streamPlan } from '../wire-fakes/plan.ts';
import { openAIChatWire, openAIErrorBody } from '../wire-fakes/openai-chat.ts';
import { acquireWireFake, type WireScenario } from '../wire-fakes/server.ts';
import type { WireTurn } from '../wire-fakes/turn.ts';
import { withoutTags } from '../wire-fakes/faults.ts';
import { createOpenAIChatClient, type OpenAIChatClientOptions } from './client.ts';

const fake = acquireWireFake();
afterAll(() => fake.release());

const reply: WireTurn = { blocks: [{ type: 'text', text: 'Done.' }], stop: 'end', usage: { input: 5, output: 2 } };

function clientFor(scenario: WireScenario, options: Partial<OpenAIChatClientOptions> = {}) {
  return createOpenAIChatClient({ apiKey: 'sk-test-chat-key-0000000000000000', baseURL: scenario.baseURL('openai-chat'), model: 'gpt-5.4-mini', ...options });
}

const conversation: ModelRequest = {
  model: 'gpt-5.4',
  system: 'You are terse.',
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'Weather and time in Paris?' }] },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_call', id: 'call_a', name: 'get_weather', args: { city: 'Paris' } },
        { type: 'tool_call', id: 'call_b', name: 'get_time', args: {} },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Also: be brief.' },
        { type: 'tool_result', callId: 'call_a', status: 'ok', content: '18°C, clear' },
        { type: 'tool_result', callId: 'call_b', status: 'failed', content: '{"error_code":"tz_unknown"}' },
      ],
    },
    { role: 'user', content: [{ type: 'text', text: 'Thanks.' }] },
  ],
  tools: [
    { name: 'get_weather', description: 'Weather for a city.', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  ],
  maxTokens: 512,
  temperature: 0.2,
};

describe('createOpenAIChatClient: the request on the wire', () => {
  it('sends the system message, assistant tool_calls, tool messages in call order before the text, tools, stream options and max_completion_tokens', async () => {
    const scenario = fake.scenario(streamPlan(openAIChatWire.streamFrames(reply)));
    expect((await clientFor(scenario).call(conversation)).type).toBe('reply');
    const [sent] = scenario.requests;
    expect(sent!.path).toBe('/v1/chat/completions');
    expect(sent!.headers['authorization']).toBe('[REDACTED]');
    expect(sent!.body).toEqual({
      model: 'gpt-5.4',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Weather and time in Paris?' },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: '18°C, clear' },
        { role: 'tool', tool_call_id: 'call_b', content: '{"error_code":"tz_unknown"}' },
        { role: 'user', content: 'Also: be brief.' },
        { role: 'user', content: 'Thanks.' },
      ],
      max_completion_tokens: 512,
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather for a city.',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        },
      ],
      temperature: 0.2,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('sends non-streaming requests, the system prompt as a system message', async () => {
    const scenario = fake.scenario(jsonPlan(200, openAIChatWire.completeBody(reply)));
    const result = await clientFor(scenario, { stream: false }).call(conversation);
    expect(result).toMatchObject({ type: 'reply', text: 'Done.', usage: { inputTokens: 5, outputTokens: 2 } });
    const body = scenario.requests[0]!.body as { messages: { role: string }[]; stream?: unknown };
    expect(body.messages[0]).toEqual({ role: 'system', content: 'You are terse.' });
    expect(body.stream).toBeUndefined();
  });
});

describe('createOpenAIChatClient: endings', () => {
  it('never retries inside the SDK', async () => {
    const answer = openAIChatWire.errorAnswer('server_error');
    const scenario = fake.scenario(jsonPlan(answer.status, answer.body));
    expect(await clientFor(scenario).call(conversation)).toMatchObject({ type: 'transport_error', kind: 'server_error', status: 500 });
    expect(scenario.requests).toHaveLength(1);
  });

  it('reads the context_length_exceeded 400 as overflow at request', async () => {
    const answer = openAIChatWire.errorAnswer('overflow');
    const scenario = fake.scenario(jsonPlan(answer.status, answer.body));
    expect(await clientFor(scenario).call(conversation)).toMatchObject({ type: 'context_window_exceeded', at: 'request' });
  });

  it('reads a context-length error chunk inside the stream as overflow', async () => {
    const frames = [
      openAIChatWire.streamFrames(reply)[0]!,
      sseFrame(null, openAIErrorBody("This model's maximum context length is 8192 tokens.", 'invalid_request_error', 'context_length_exceeded'), 'error'),
    ];
    const scenario = fake.scenario(streamPlan(frames));
    expect(await clientFor(scenario).call(conversation)).toMatchObject({ type: 'context_window_exceeded', at: 'request' });
  });

  it('ends finish_reason content_filter as refusal', async () => {
    const scenario = fake.scenario(streamPlan(openAIChatWire.streamFrames({ ...reply, stop: { unknown: 'content_filter' } })));
    expect(await clientFor(scenario).call(conversation)).toMatchObject({ type: 'refusal', details: { finish_reason: 'content_filter' } });
  });

  it('keeps a reply whose stream ended after finish_reason but before the usage chunk, without usage', async () => {
    const frames = withoutTags(openAIChatWire.streamFrames(reply), ['usage', 'final']);
    const scenario = fake.scenario(streamPlan(frames));
    const result = await clientFor(scenario).call(conversation);
    expect(result).toEqual({ type: 'reply', content: [{ type: 'text', text: 'Done.' }], text: 'Done.', stopReason: 'stop' });
  });

  it('unwraps an undeclared multi_tool_use.parallel call into the calls it carries', async () => {
    const args = JSON.stringify({
      tool_uses: [
        { recipient_name: 'functions.get_weather', parameters: { city: 'Paris' } },
        { recipient_name: 'functions.get_weather', parameters: { city: 'Rome' } },
      ],
    });
    const turn: WireTurn = {
      blocks: [{ type: 'tool_call', id: 'call_w', name: 'multi_tool_use.parallel', args }],
      stop: 'tool_use',
      usage: { input: 1, output: 1 },
    };
    const scenario = fake.scenario(streamPlan(openAIChatWire.streamFrames(turn)));
    const result = await clientFor(scenario).call(conversation);
    expect(result.type === 'tool_use' && result.calls.map((c) => [c.id, c.name, c.args])).toEqual([
      ['call_w_0', 'get_weather', { city: 'Paris' }],
      ['call_w_1', 'get_weather', { city: 'Rome' }],
    ]);
  });

  it('leaves a declared tool named parallel alone', async () => {
    const turn: WireTurn = {
      blocks: [{ type: 'tool_call', id: 'call_p', name: 'parallel', args: '{"tool_uses":[{"recipient_name":"x"}]}' }],
      stop: 'tool_use',
      usage: { input: 1, output: 1 },
    };
    const scenario = fake.scenario(streamPlan(openAIChatWire.streamFrames(turn)));
    const request = { ...conversation, tools: [{ name: 'parallel', description: 'Runs things.', inputSchema: { type: 'object' } }] };
    const result = await clientFor(scenario).call(request);
    expect(result.type === 'tool_use' && result.calls.map((c) => c.name)).toEqual(['parallel']);
  });

  it('keeps arguments that are not valid JSON as text for the loop to report', async () => {
    const turn: WireTurn = {
      blocks: [{ type: 'tool_call', id: 'call_x', name: 'get_weather', args: "{city: 'Paris'}" }],
      stop: 'tool_use',
      usage: { input: 1, output: 1 },
    };
    const scenario = fake.scenario(streamPlan(openAIChatWire.streamFrames(turn)));
    const result = await clientFor(scenario).call(conversation);
    expect(result).toMatchObject({ type: 'tool_use', calls: [{ id: 'call_x', args: "{city: 'Paris'}", rawArgs: "{city: 'Paris'}" }] });
  });
});
