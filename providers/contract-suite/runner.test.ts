/**
 * The suite must fail clients that break the contract, not just pass good ones.
 */
import { describe, expect, it } from 'vitest';
import type { ModelClient, ModelResult } from '../../src/kernel/model/client.ts';
import { reply, transportError } from '../fake/results.ts';
import { CONTRACT_CASE_LIST, CONTRACT_CASES } from './cases.ts';
import type { ContractHarness, ReceivedByProvider } from './harness.ts';
import { runContract } from './runner.ts';
import { createScriptedHarness } from './scripted-harness.ts';
import { createWireHarness } from './wire-harness.ts';

function harnessOf(client: ModelClient, unsupported: Record<string, string> = {}): ContractHarness {
  return { name: 'broken', unsupported, clientFor: () => ({ client }) };
}

describe('runContract', () => {
  it('lists every case as data with an id and a description', () => {
    expect(CONTRACT_CASE_LIST.length).toBe(CONTRACT_CASES.length);
    expect(new Set(CONTRACT_CASE_LIST.map((c) => c.id)).size).toBe(CONTRACT_CASE_LIST.length);
    for (const c of CONTRACT_CASE_LIST) expect(c.title.length).toBeGreaterThan(10);
  });

  it('reports pass, and skip with the reason, for the scripted fake', async () => {
    const reports = await runContract(createScriptedHarness());
    expect(reports.filter((r) => r.status === 'fail')).toEqual([]);
    const skip = reports.find((r) => r.id === 'malformed_stream');
    expect(skip).toMatchObject({ status: 'skip', reason: expect.stringContaining('no wire') });
    expect(reports.find((r) => r.id === 'reply_text')).toMatchObject({ status: 'pass', result: { type: 'reply' } });
  });

  it('fails a client that rejects', async () => {
    const client: ModelClient = { name: 'rejecting', call: () => Promise.reject(new Error('boom')) };
    const [report] = await runContract(harnessOf(client), { only: ['reply_text'] });
    expect(report).toMatchObject({ status: 'fail', reason: expect.stringContaining('rejected instead of settling') });
  });

  it('fails a client that streams a delta after it settled', async () => {
    const client: ModelClient = {
      name: 'late',
      async call(_request, onDelta) {
        setTimeout(() => onDelta?.({ kind: 'text', text: 'late' }), 1);
        return reply('The capital of France is Paris.');
      },
    };
    const [report] = await runContract(harnessOf(client), { only: ['reply_text'] });
    expect(report).toMatchObject({ status: 'fail', reason: expect.stringContaining('after the call settled') });
  });

  it('fails a result that does not have the contract shape', async () => {
    const client: ModelClient = {
      name: 'shapeless',
      call: async () => ({ type: 'reply', text: 'x' }) as unknown as ModelResult,
    };
    const [report] = await runContract(harnessOf(client), { only: ['reply_text'] });
    expect(report).toMatchObject({ status: 'fail', reason: expect.stringContaining("contract's shape") });
  });

  it('fails a client that treats a stream without its end as a reply', async () => {
    const client: ModelClient = { name: 'trusting', call: async () => reply('The capital of France is Paris.') };
    const [report] = await runContract(harnessOf(client), { only: ['stream_without_final_event'] });
    expect(report).toMatchObject({ status: 'fail', reason: expect.stringContaining('expected a transport_error result, got {"type":"reply"') });
  });

  it('fails a client whose result carries its API key, in any form, without printing the key', async () => {
    const key = 'acme-sk-live-7f3a9c2e41b8d6057';
    const leaks = (message: string): ModelClient => ({ name: 'leaky', call: async () => transportError('server_error', { status: 500, message }) });
    const harness = (client: ModelClient): ContractHarness => ({ name: 'leaky', clientFor: () => ({ client, secrets: [key] }) });
    for (const message of [`POST /v1/generate (authorization: Bearer ${key}) failed`, `headers: ${Buffer.from(`Bearer ${key}`).toString('base64')}`]) {
      const [report] = await runContract(harness(leaks(message)), { only: ['server_error_500'] });
      expect(report).toMatchObject({ status: 'fail', reason: expect.stringContaining('carries a credential the client was given') });
      expect(report!.reason).not.toContain(key);
    }
    const clean = await runContract(harness(leaks('POST /v1/generate failed: boom')), { only: ['server_error_500'] });
    expect(clean[0]).toMatchObject({ status: 'pass' });
  });

  it('fails a client that sends its API key anywhere but the auth header, without printing the key', async () => {
    // Outside probe 53: a client copying its key into another header (or the URL, or the body) passed every case.
    const key = 'acme-sk-live-7f3a9c2e41b8d6057';
    const client: ModelClient = { name: 'fine', call: async () => reply('The capital of France is Paris.', { inputTokens: 321, outputTokens: 45 }) };
    const sending = (request: ReceivedByProvider): ContractHarness => ({
      name: 'gateway',
      clientFor: () => ({
        client,
        streams: false,
        secrets: [key],
        received: () => [{ path: '/v1/generate', headers: { 'content-type': 'application/json' }, body: {} }, request],
      }),
    });
    const cases: [ReceivedByProvider, string][] = [
      [{ path: '/v1/generate', headers: { 'x-debug-auth': `Bearer ${key}` } }, "request 2's header x-debug-auth carries a credential"],
      [{ path: `/v1/generate?key=${encodeURIComponent(key)}`, headers: {} }, "request 2's path carries a credential"],
      [
        { path: '/v1/generate', headers: {}, body: { metadata: { k: Buffer.from(key).toString('base64') } } },
        "request 2's body.metadata.k carries a credential",
      ],
    ];
    for (const [request, reason] of cases) {
      const [report] = await runContract(sending(request), { only: ['reply_text'] });
      expect(report).toMatchObject({ status: 'fail', reason: expect.stringContaining(reason) });
      expect(report!.reason).toContain('only its auth header may');
      expect(report!.reason).not.toContain(key);
    }
    const clean = await runContract(sending({ path: '/v1/generate', headers: { 'x-request-id': 'r-1' }, body: { prompt: 'hi' } }), { only: ['reply_text'] });
    expect(clean[0]).toMatchObject({ status: 'pass' });
  });

  it("fails a bundled adapter whose fetch copies the key into another header, on the wire fake's requests", async () => {
    const copying =
      (into: string): typeof fetch =>
      (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set(into, headers.get('x-api-key') ?? headers.get('authorization') ?? '');
        return fetch(input, { ...init, headers });
      };
    // Any header but the provider's own auth ones: another provider's (a gateway wrapper sending both), a cookie
    // (review of stop 59, MED-1: the fake redacted these four on every request, so a key copied there passed).
    const cases = [
      ['anthropic', 'x-debug-auth'],
      ['anthropic', 'cookie'],
      ['anthropic', 'api-key'],
      ['openai-chat', 'x-debug-auth'],
      ['openai-chat', 'x-api-key'],
      ['openai-chat', 'cookie'],
    ] as const;
    for (const [provider, header] of cases) {
      const [report] = await runContract(createWireHarness(provider, { adapter: { fetch: copying(header) } }), { only: ['reply_text'] });
      expect(report, `${provider} ${header}`).toMatchObject({
        status: 'fail',
        reason: expect.stringContaining(`request 1's header ${header} carries a credential`),
      });
    }
    const [plain] = await runContract(createWireHarness('anthropic'), { only: ['reply_text'] });
    expect(plain).toMatchObject({ status: 'pass' });
  });

  it('fails a client that streams its API key in a delta', async () => {
    const key = 'acme-sk-live-7f3a9c2e41b8d6057';
    const client: ModelClient = {
      name: 'leaky-delta',
      async call(_request, onDelta) {
        onDelta?.({ kind: 'text', text: `debug: key=${key}` });
        return reply('The capital of France is Paris.');
      },
    };
    const [report] = await runContract({ name: 'leaky', clientFor: () => ({ client, secrets: [key] }) }, { only: ['reply_text'] });
    expect(report).toMatchObject({ status: 'fail', reason: expect.stringContaining('delta 0.text carries a credential') });
    expect(report!.reason).not.toContain(key);
  });

  it("judges the held-back tail by the harness's own key: a key the text cannot begin lets the first piece out whole", async () => {
    // Outside probe 53, MED-3: docs/own-provider.md's key failed a correct client ("Key: wire-" let out whole), since
    // the case assumed the bundled wire fakes' key (wire-fake-key-…), which "wire-" may begin.
    const stalls = (firstOut: string): ModelClient => ({
      name: 'stalls',
      async call(_request, onDelta) {
        onDelta?.({ kind: 'text', text: firstOut });
        return transportError('timeout');
      },
    });
    const run = async (key: string, firstOut: string) =>
      (await runContract({ name: 'own', clientFor: () => ({ client: stalls(firstOut), secrets: [key] }) }, { only: ['timeout_lets_out_no_held_text'] }))[0];
    expect(await run('acme-test-key-7f3a9c2e1d4b', 'Key: wire-')).toMatchObject({ status: 'pass' });
    expect(await run('wire-fake-key-7f3a9c2e1d4b', 'Key: ')).toMatchObject({ status: 'pass' });
    expect(await run('wire-fake-key-7f3a9c2e1d4b', 'Key: wire-')).toMatchObject({ status: 'fail', reason: expect.stringContaining('only the text let out') });
  });

  it("takes an in-house protocol's own word for a tool-use stop without a call, not an empty or an ending one", async () => {
    // Outside probe 53, LOW-1: a gateway whose stop word is `tool` had to misreport it as OpenAI's or Anthropic's.
    const stopsWith = (stopReason: string): ModelClient => ({
      name: 'in-house',
      call: async () => ({
        type: 'unknown',
        stopReason,
        content: [{ type: 'text', text: 'Let me look that up.' }],
        text: 'Let me look that up.',
        usage: { inputTokens: 321, outputTokens: 45 },
      }),
    });
    const run = async (stop: string) => (await runContract(harnessOf(stopsWith(stop)), { only: ['tool_use_stop_without_a_call'] }))[0];
    for (const stop of ['tool', 'tool_use', 'tool_calls', 'function_call']) expect(await run(stop)).toMatchObject({ status: 'pass' });
    for (const stop of ['', 'end_turn', 'stop']) expect(await run(stop)).toMatchObject({ status: 'fail', reason: expect.stringContaining('stop reason') });
  });

  it("takes an in-house protocol's typed overloaded error under a 500 in its own words, not by the message's", async () => {
    // Outside probe 58, LOW-1: the case read the type from the message text, so `overloaded` said in other words failed.
    const answers = (kind: 'overloaded' | 'server_error' | 'network', message: string): ModelClient => ({
      name: 'in-house',
      call: async () => transportError(kind, { status: 500, message }),
    });
    const run = async (client: ModelClient) => (await runContract(harnessOf(client), { only: ['overloaded_body_under_another_5xx'] }))[0];
    expect(await run(answers('overloaded', 'the gateway is overloaded'))).toMatchObject({ status: 'pass' });
    expect(await run(answers('server_error', 'The server is overloaded or not ready yet.'))).toMatchObject({ status: 'pass' });
    expect(await run(answers('network', 'overloaded'))).toMatchObject({ status: 'fail' });
  });

  it('fails a client that reads retry-after only as seconds, not as an HTTP date', async () => {
    const numbersOnly: ModelClient = { name: 'numbers-only', call: async () => transportError('rate_limited', { status: 429 }) };
    const [report] = await runContract(harnessOf(numbersOnly), { only: ['rate_limited_429_retry_after_date'] });
    expect(report).toMatchObject({ status: 'fail', reason: expect.stringContaining('retryAfterMs undefined: expected the time until the date') });
  });

  it('fails a client that drops the text written after a tool call', async () => {
    const call = { type: 'tool_call', id: 'call_t1', name: 'get_weather', args: { city: 'Rome' } } as const;
    const client: ModelClient = {
      name: 'text-before-calls-only',
      call: async () => ({
        type: 'tool_use',
        content: [{ type: 'text', text: 'Let me check.' }, call],
        calls: [{ id: call.id, name: call.name, args: call.args }],
        text: 'Let me check.',
        usage: { inputTokens: 321, outputTokens: 45 },
      }),
    };
    const [report] = await runContract(harnessOf(client), { only: ['text_after_tool_call'] });
    expect(report).toMatchObject({ status: 'fail', reason: expect.stringContaining('both texts, in order') });
  });

  it('skips a case the harness declares unsupported, with the reason', async () => {
    const client: ModelClient = { name: 'any', call: async () => reply('x') };
    const [report] = await runContract(harnessOf(client, { refusal: 'cannot refuse' }), { only: ['refusal'] });
    expect(report).toEqual({ id: 'refusal', title: expect.any(String), status: 'skip', reason: 'cannot refuse' });
  });
});
