/**
 * A production host built from its YAML, exporting to a local OTLP receiver
 * (`trace.export.otlp`, the collector's key from an environment variable): the
 * bundled example agent's tools, a scripted model standing in for Anthropic.
 * One trace per turn with GenAI attributes; the `traceparent` given to `handle` is
 * the turn's parent, and the tool got a traceparent naming its own exported span;
 * no configured secret in any span, attribute or resource.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, reply, toolUse } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { SupportBackend } from '../../scenarios/example-agent/backend.ts';
import { supportTools } from '../../scenarios/example-agent/tools.ts';
import { createHostFromConfig } from '../../src/host/from-config.ts';
import { ConfigError } from '../../src/host/config.ts';
import type { AnyToolDeclaration } from '../../src/kernel/index.ts';
import { OtlpReceiver } from '../support/otlp-receiver.ts';

const INGEST_KEY = 'otlp-ingest-key-5d1e88a0c4f7';
const SECRET = 'customer-vault-password-4471';
const CALLER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN = 'b7ad6b7169203331';

let receiver: OtlpReceiver;
const dir = mkdtempSync(join(tmpdir(), 'loopgate-otlp-'));
beforeAll(async () => {
  receiver = await OtlpReceiver.start();
});
afterAll(async () => {
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

function configFile(endpoint: string): string {
  const file = join(dir, `agent-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(
    file,
    `model:
  provider: fake
  name: claude-sonnet-4-6
store: { kind: memory }
trace:
  export:
    otlp:
      endpoint: ${endpoint}
      headers: { x-ingest-key: OTLP_INGEST_KEY }
      serviceName: support-agent
      agentName: support
`,
  );
  return file;
}

/** The example agent's tools, each recording the traceparent it was given. */
function tracedTools(seen: Map<string, string | undefined>): AnyToolDeclaration[] {
  return supportTools(new SupportBackend()).map((tool) => ({
    ...tool,
    run: (args, ctx) => {
      seen.set(ctx.callId, ctx.traceparent);
      return tool.run(args, ctx);
    },
  }));
}

describe('OTLP export from the production host', () => {
  it('exports one trace per turn, the given traceparent as the root’s parent, GenAI attributes, no secret', async () => {
    const seen = new Map<string, string | undefined>();
    const model = new ScriptedModelClient(
      [
        toolUse([call('toolu_look', 'lookup_order', { order_id: 'ORD-1001' }), call('toolu_note', 'add_note', { order_id: 'ORD-1001', note: `pw ${SECRET}` })]),
        reply('ORD-1001 has shipped.', { inputTokens: 310, outputTokens: 12 }),
        reply('You are welcome.'),
      ],
      { name: 'anthropic:claude-sonnet-4-6' },
    );
    const host = await createHostFromConfig(configFile(receiver.url), {
      env: { OTLP_INGEST_KEY: INGEST_KEY },
      modelClient: () => model,
      tools: tracedTools(seen),
      secrets: [SECRET],
      // A hook whose failure quotes the secret: its error becomes a span attribute.
      checkpoints: [
        {
          name: 'audit',
          run: () => {
            throw new Error(`audit store refused credentials ${SECRET}`);
          },
        },
      ],
    });

    const bad = await host.handle('conv-otel', 'hello', { traceparent: '00-not-a-trace-01' });
    expect(bad).toMatchObject({ status: 400, messageId: undefined });
    expect(bad.error).toMatch(/^invalid traceparent "00-not-a-trace-01": expected "00-<32 hex trace id>-<16 hex parent span id>-<2 hex flags>"/);
    expect(await host.events('conv-otel')).toEqual([]); // nothing stored

    const first = await host.handle('conv-otel', `Where is ORD-1001? My password is ${SECRET}`, { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` });
    expect(first).toMatchObject({ status: 200, reply: 'ORD-1001 has shipped.' });
    const second = await host.handle('conv-otel', 'Thanks!');
    expect(second).toMatchObject({ status: 200, reply: 'You are welcome.' });
    await host.close(); // sends what the exporter buffered

    // One trace per turn, each with one root: the agent invocation.
    const traces = [...receiver.traces().values()];
    expect(traces).toHaveLength(2);
    const roots = traces.map((spans) => spans.filter((s) => s.name === 'invoke_agent support'));
    expect(roots.map((r) => r.length)).toEqual([1, 1]);
    const [turn1, turn2] = traces
      .map((spans) => ({ spans, root: spans.find((s) => s.name === 'invoke_agent support')! }))
      .sort((a, b) => Number(a.root.attributes['loopgate.turn']) - Number(b.root.attributes['loopgate.turn']));
    // The caller's trace and span: turn 1 is its child. Turn 2 had no traceparent: a trace of its own.
    expect(turn1!.root.traceId).toBe(CALLER_TRACE);
    expect(turn1!.root.parentSpanId).toBe(CALLER_SPAN);
    expect(turn2!.root.traceId).not.toBe(CALLER_TRACE);
    expect(turn2!.root.parentSpanId).toBeUndefined();
    for (const { spans, root } of [turn1!, turn2!]) {
      const ids = new Set(spans.map((s) => s.spanId));
      for (const span of spans) if (span !== root) expect(ids.has(span.parentSpanId!), `${span.name} hangs in its trace`).toBe(true);
    }
    expect(turn1!.root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'support',
      'gen_ai.conversation.id': 'conv-otel',
      'gen_ai.provider.name': 'anthropic',
      'loopgate.outcome': 'replied',
      'loopgate.steps': 2,
      'loopgate.tool_calls': 2,
    });
    expect(turn1!.root.resource['service.name']).toBe('support-agent');

    const chats = turn1!.spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
    expect(chats.map((s) => [s.name, s.kind, s.attributes['gen_ai.response.finish_reasons'], s.attributes['loopgate.step']])).toEqual([
      ['chat claude-sonnet-4-6', 3, ['tool_call'], 1],
      ['chat claude-sonnet-4-6', 3, ['stop'], 2],
    ]);
    expect(chats[1]!.attributes).toMatchObject({ 'gen_ai.provider.name': 'anthropic', 'gen_ai.usage.input_tokens': 310, 'gen_ai.usage.output_tokens': 12 });
    const tools = turn1!.spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(tools.map((s) => [s.name, s.attributes['gen_ai.tool.call.id'], s.attributes['loopgate.side_effect'], s.attributes['loopgate.step']]).sort()).toEqual(
      [
        ['execute_tool add_note', 'toolu_note', 'IDEMPOTENT', 1],
        ['execute_tool lookup_order', 'toolu_look', 'NONE', 1],
      ],
    );

    // Each tool got a traceparent naming its own exported span, in the caller's trace.
    for (const span of tools) {
      expect(seen.get(String(span.attributes['gen_ai.tool.call.id']))).toBe(`00-${CALLER_TRACE}-${span.spanId}-01`);
    }

    // The collector's key went as a header, and no configured secret is in anything sent.
    expect(receiver.requests.every((r) => r.headers['x-ingest-key'] === INGEST_KEY)).toBe(true);
    const sent = receiver.requests.map((r) => r.body).join('\n');
    const audit = turn1!.spans.find((s) => s.name === 'audit')!;
    expect(audit.attributes['loopgate.error']).toBe('Error: audit store refused credentials [REDACTED]');
    expect(sent).not.toContain(SECRET);
    expect(sent).not.toContain(INGEST_KEY);
  });

  it('refuses a header whose variable is not set, naming the key, before anything is opened', async () => {
    const file = configFile('http://127.0.0.1:4318');
    await expect(createHostFromConfig(file, { env: {}, modelClient: () => new ScriptedModelClient([]) })).rejects.toThrow(ConfigError);
    await expect(createHostFromConfig(file, { env: {}, modelClient: () => new ScriptedModelClient([]) })).rejects.toThrow(
      /agent-\w+\.yaml:\d+:\d+: trace\.export\.otlp\.headers\.x-ingest-key: the environment variable OTLP_INGEST_KEY is not set/,
    );
  });
});
