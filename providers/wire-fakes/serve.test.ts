/**
 * The same plans served by a real local HTTP server (how a stand-in for a live
 * API works), read by a real adapter.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnthropicClient } from '../anthropic/client.ts';
import type { ModelRequest } from '../../src/kernel/model/client.ts';
import { anthropicWire } from './anthropic.ts';
import { upToNth } from './faults.ts';
import type { WirePlan } from './plan.ts';
import { jsonPlan, streamPlan } from './plan.ts';
import { servePlanOnNode } from './serve.ts';

let plan: WirePlan = { kind: 'reset' };
let server: Server;
let baseURL = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => void servePlanOnNode(plan, req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const request: ModelRequest = {
  model: 'claude-haiku-4-5',
  system: '',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  tools: [],
  maxTokens: 16,
  timeoutMs: 5000,
};
const turn = { blocks: [{ type: 'text' as const, text: 'Hello from a socket.' }], stop: 'end' as const, usage: { input: 3, output: 4 } };

describe('servePlanOnNode', () => {
  it('streams a turn that the adapter reads as a reply', async () => {
    plan = streamPlan(anthropicWire.streamFrames(turn));
    const result = await createAnthropicClient({ apiKey: 'k', baseURL, model: 'm' }).call(request);
    expect(result).toMatchObject({ type: 'reply', text: 'Hello from a socket.' });
  });

  it('serves error bodies, resets and mid-stream drops', async () => {
    const client = createAnthropicClient({ apiKey: 'k', baseURL, model: 'm' });
    plan = jsonPlan(529, anthropicWire.errorAnswer('overloaded').body);
    expect(await client.call(request)).toMatchObject({ type: 'transport_error', kind: 'overloaded', status: 529 });
    plan = { kind: 'reset' };
    expect(await client.call(request)).toMatchObject({ type: 'transport_error', kind: 'network' });
    plan = streamPlan(upToNth(anthropicWire.streamFrames(turn), 'text_delta'), 'reset');
    expect(await client.call(request)).toMatchObject({ type: 'transport_error', kind: 'network' });
  });
});
