import { afterAll, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/kernel/model/client.ts';
import { jsonPlan, sseFrame, streamPlan, type Frame } from '../wire-fakes/plan.ts';
import { openAIResponsesWire } from '../wire-fakes/openai-responses.ts';
import { acquireWireFake, type WireScenario } from '../wire-fakes/server.ts';
import type { WireTurn } from '../wire-fakes/turn.ts';
import { createOpenAIResponsesClient, type OpenAIResponsesClientOptions } from './client.ts';

const fake = acquireWireFake();
afterAll(() => fake.release());

const reply: WireTurn = { blocks: [{ type: 'text', text: 'Done.' }], stop: 'end', usage: { input: 5, output: 2 } };

function clientFor(scenario: WireScenario, options: Partial<OpenAIResponsesClientOptions> = {}) {
  return createOpenAIResponsesClient({
    apiKey: 'sk-test-responses-key-00000000000',
    baseURL: scenario.baseURL('openai-responses'),
    model: 'gpt-5.4-mini',
    ...options,
  });
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
  ],
  tools: [
    { name: 'get_weather', description: 'Weather for a city.', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  ],
  maxTokens: 512,
};

function failedFrames(error: { code: string; message: string }, withText: boolean): Frame[] {
  const frames = openAIResponsesWire.streamFrames(reply);
  const kept = withText ? frames.filter((f) => f.tag !== 'final' && f.tag !== 'block_stop') : frames.slice(0, 2);
  return [
    ...kept,
    sseFrame(
      'response.failed',
      { type: 'response.failed', sequence_number: 500, response: { id: 'resp_x', status: 'failed', error, output: [], usage: null } },
      'final',
    ),
  ];
}

describe('createOpenAIResponsesClient: the request on the wire', () => {
  it('sends instructions, input items in order with results before text, strict-free tools, max_output_tokens, store false and the stream flag', async () => {
    const scenario = fake.scenario(streamPlan(openAIResponsesWire.streamFrames(reply)));
    expect((await clientFor(scenario).call(conversation)).type).toBe('reply');
    const [sent] = scenario.requests;
    expect(sent!.path).toBe('/v1/responses');
    expect(sent!.body).toEqual({
      model: 'gpt-5.4',
      instructions: 'You are terse.',
      input: [
        { role: 'user', content: 'Weather and time in Paris?' },
        { role: 'assistant', content: 'Checking.' },
        { type: 'function_call', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call', call_id: 'call_b', name: 'get_time', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_a', output: '18°C, clear' },
        { type: 'function_call_output', call_id: 'call_b', output: '{"error_code":"tz_unknown"}' },
        { role: 'user', content: 'Also: be brief.' },
      ],
      max_output_tokens: 512,
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          description: 'Weather for a city.',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          strict: false,
        },
      ],
      store: false,
      stream: true,
    });
  });

  it('stores responses only when asked, and sends non-streaming requests', async () => {
    const scenario = fake.scenario(jsonPlan(200, openAIResponsesWire.completeBody(reply)));
    const result = await clientFor(scenario, { store: true, stream: false }).call(conversation);
    expect(result).toMatchObject({ type: 'reply', text: 'Done.', usage: { inputTokens: 5, outputTokens: 2 } });
    expect(scenario.requests[0]!.body).toMatchObject({ store: true });
    expect((scenario.requests[0]!.body as { stream?: unknown }).stream).toBeUndefined();
  });
});

describe('createOpenAIResponsesClient: endings', () => {
  it('reads response.failed with context_length_exceeded before any output as overflow at request', async () => {
    const scenario = fake.scenario(
      streamPlan(failedFrames({ code: 'context_length_exceeded', message: 'Your input exceeds the context window of this model.' }, false)),
    );
    expect(await clientFor(scenario).call(conversation)).toMatchObject({ type: 'context_window_exceeded', at: 'request' });
  });

  it('reads response.failed with context_length_exceeded after output as overflow during generation, keeping the text', async () => {
    const scenario = fake.scenario(
      streamPlan(failedFrames({ code: 'context_length_exceeded', message: 'Your input exceeds the context window of this model.' }, true)),
    );
    expect(await clientFor(scenario).call(conversation)).toMatchObject({
      type: 'context_window_exceeded',
      at: 'generation',
      content: [{ type: 'text', text: 'Done.' }],
    });
  });

  it('reads an error event with top-level code and message', async () => {
    const frames = [
      ...openAIResponsesWire.streamFrames(reply).slice(0, 2),
      sseFrame('error', { type: 'error', sequence_number: 2, code: 'rate_limit_exceeded', message: 'Slow down.', param: null }, 'error'),
    ];
    const scenario = fake.scenario(streamPlan(frames));
    expect(await clientFor(scenario).call(conversation)).toMatchObject({ type: 'transport_error', kind: 'rate_limited', message: 'Slow down.' });
  });

  it('ends incomplete with content_filter as refusal', async () => {
    const scenario = fake.scenario(streamPlan(openAIResponsesWire.streamFrames({ ...reply, stop: { unknown: 'content_filter' } })));
    expect(await clientFor(scenario).call(conversation)).toMatchObject({ type: 'refusal', stopReason: 'content_filter' });
  });

  it('flags a function call cut by max_output_tokens as partial and leaves it out of the content', async () => {
    const frames = openAIResponsesWire.streamFrames({
      blocks: [{ type: 'tool_call', id: 'call_c', name: 'get_weather', args: '{"city":"Pa' }],
      stop: 'max_tokens',
      usage: { input: 1, output: 1 },
    });
    const scenario = fake.scenario(streamPlan(frames));
    expect(await clientFor(scenario).call(conversation)).toMatchObject({ type: 'max_tokens', partialToolCall: true, content: [] });
  });

  it('takes the finished item as authoritative when text deltas fell short', async () => {
    const frames = openAIResponsesWire.streamFrames(reply).filter((f) => f.tag !== 'text_delta');
    const scenario = fake.scenario(streamPlan(frames));
    expect(await clientFor(scenario).call(conversation)).toMatchObject({ type: 'reply', text: 'Done.' });
  });
});
