import { afterAll, describe, expect, it } from 'vitest';
import { jsonPlan } from './plan.ts';
import { acquireWireFake, WIRE_FAKE_ORIGIN } from './server.ts';

const fake = acquireWireFake();
/** The smallest bodies each provider accepts (the fake refuses what the provider would). */
const chatBody = (extra: object = {}) => JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...extra });
const messagesBody = (extra: object = {}) => JSON.stringify({ model: 'm', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }], ...extra });
afterAll(() => fake.release());

describe('wire fake server', () => {
  it('records each request (auth headers redacted) and answers plan by plan, repeating the last', async () => {
    const scenario = fake.scenario([jsonPlan(500, { n: 1 }), jsonPlan(200, { n: 2 })]);
    const url = `${scenario.baseURL('openai-chat')}/chat/completions`;
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { authorization: 'Bearer sk-secret-value', 'content-type': 'application/json' },
        body: chatBody({ i }),
      });
      statuses.push(response.status);
      await response.text();
    }
    expect(statuses).toEqual([500, 200, 200]);
    expect(scenario.requests.map((r) => (r.body as { i: number }).i)).toEqual([0, 1, 2]);
    expect(scenario.requests[0]!.path).toBe('/v1/chat/completions');
    expect(scenario.requests[0]!.headers['authorization']).toBe('[REDACTED]');
  });

  it('keeps scenarios apart and answers 404 for one that does not exist', async () => {
    const a = fake.scenario(jsonPlan(200, { from: 'a' }));
    const b = fake.scenario(jsonPlan(200, { from: 'b' }));
    expect(await (await fetch(`${b.baseURL('anthropic')}/v1/messages`, { method: 'POST', body: messagesBody() })).json()).toEqual({ from: 'b' });
    expect(await (await fetch(`${a.baseURL('anthropic')}/v1/messages`, { method: 'POST', body: messagesBody() })).json()).toEqual({ from: 'a' });
    expect((await fetch(`${WIRE_FAKE_ORIGIN}/s/nope/v1/messages`, { method: 'POST' })).status).toBe(404);
  });

  it('serves a scenario that names its key only that key, answering any other 401 as the provider does', async () => {
    const scenario = fake.scenario(jsonPlan(200, { served: true }), { apiKey: 'key-of-this-client' });
    const post = (provider: 'anthropic' | 'openai-chat', headers: Record<string, string>) =>
      fetch(provider === 'anthropic' ? `${scenario.baseURL('anthropic')}/v1/messages` : `${scenario.baseURL('openai-chat')}/chat/completions`, {
        method: 'POST',
        headers,
        body: provider === 'anthropic' ? messagesBody() : chatBody(),
      });
    const wrongAnthropic = await post('anthropic', { 'x-api-key': 'key-of-another-client' });
    expect(wrongAnthropic.status).toBe(401);
    expect(await wrongAnthropic.json()).toEqual({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
    const wrongOpenAi = await post('openai-chat', { authorization: 'Bearer key-of-another-client' });
    expect(wrongOpenAi.status).toBe(401);
    const body = JSON.stringify(await wrongOpenAi.json());
    expect(body).toContain('invalid_api_key');
    expect(body).not.toContain('key-of-another-client');
    expect((await post('openai-chat', {})).status).toBe(401);
    expect(scenario.requests).toHaveLength(0); // nothing served
    expect(await (await post('anthropic', { 'x-api-key': 'key-of-this-client' })).json()).toEqual({ served: true });
    expect(await (await post('openai-chat', { authorization: 'Bearer key-of-this-client' })).json()).toEqual({ served: true });
    expect(scenario.requests).toHaveLength(2);
  });

  it('resets the connection when planned', async () => {
    const scenario = fake.scenario({ kind: 'reset' });
    await expect(fetch(`${scenario.baseURL('anthropic')}/v1/messages`, { method: 'POST', body: messagesBody() })).rejects.toThrow();
  });

  it('answers with a responder function of the request', async () => {
    const scenario = fake.scenario((request) => jsonPlan(200, { echo: request.body }));
    const response = await fetch(`${scenario.baseURL('anthropic')}/v1/messages`, { method: 'POST', body: messagesBody({ x: 1 }) });
    expect(await response.json()).toMatchObject({ echo: { x: 1 } });
  });

  it('answers a request the provider would refuse with its 400 invalid_request_error, not the plan', async () => {
    const scenario = fake.scenario(jsonPlan(200, { planned: true }));
    const chat = await fetch(`${scenario.baseURL('openai-chat')}/chat/completions`, { method: 'POST', body: chatBody({ model: '' }) });
    expect(chat.status).toBe(400);
    expect(await chat.json()).toMatchObject({ error: { type: 'invalid_request_error', message: expect.stringContaining('model') } });
    const messages = await fetch(`${scenario.baseURL('anthropic')}/v1/messages`, {
      method: 'POST',
      body: messagesBody({ messages: [{ role: 'assistant', content: 'hi' }] }),
    });
    expect(messages.status).toBe(400);
    expect(await messages.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('messages.0.role') },
    });
    expect(scenario.requests).toHaveLength(2);
  });
});
