/**
 * The OpenTelemetry exporter on the official SDK, against a local OTLP receiver:
 * the turn's spans arrive with the W3C ids the tools were given, their parent
 * links, the caller's span as the turn's parent, GenAI names and statuses, the
 * collector's headers — and no secret in any name or attribute.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OtlpReceiver } from '../../../test/support/otlp-receiver.ts';
import { createRedactor, Tracer, type TraceRecord } from '../../kernel/index.ts';
import { OtelTraceExporter } from './otel-exporter.ts';

const HEADER_SECRET = 'otlp-ingest-key-7f3a9c2e5b';
const SECRET = 'customer-vault-password-991';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await OtlpReceiver.start();
});
afterAll(() => receiver.close());

/** A turn as the loop traces it: a model call asking for a tool, the tool, a second model call replying. */
function turnTrace(options: { sampled?: boolean; parent?: boolean; w3c?: boolean; traceId?: string; tracerRedacts?: boolean } = {}): TraceRecord {
  let t = Date.now();
  let n = 0;
  const tracer = new Tracer({
    clock: { now: () => (t += 5) },
    traceId: 'conv-7:2',
    ...(options.tracerRedacts === false ? {} : { redact: createRedactor({ secrets: [SECRET] }) }),
    ...(options.w3c === false
      ? {}
      : {
          w3c: {
            traceId: options.traceId ?? TRACE_ID,
            ...(options.parent === false ? {} : { parentSpanId: CALLER_SPAN }),
            sampled: options.sampled ?? true,
            newSpanId: () => (++n).toString(16).padStart(16, 'a'),
          },
        }),
  });
  const turn = tracer.startSpan('turn', 'turn 2', undefined, { turn: 2 });
  const first = turn.child('model_call', 'anthropic:claude-sonnet-4-6', { step: 1, attempt: 1, model: 'claude-sonnet-4-6' });
  first.end('ok', { result: 'tool_use', inputTokens: 120, outputTokens: 30 });
  const tool = turn.child('tool', 'lookup_order', { tool: 'lookup_order', callId: 'toolu_1', sideEffect: 'NONE' });
  tool.setAttributes({ args: `{"order_id":"ORD-1","note":"${SECRET}"}` });
  tool.child('policy', 'policy lookup_order', { tool: 'lookup_order', callId: 'toolu_1' }).end('ok', { decision: 'allow', by: 'policy', rule: 'default' });
  tool.end('ok', { status: 'ok', attempts: 1 });
  const second = turn.child('model_call', 'anthropic:claude-sonnet-4-6', { step: 2, attempt: 1, model: 'claude-sonnet-4-6' });
  second.end('error', { result: 'transport_error', kind: 'rate_limited', inputTokens: null, outputTokens: null });
  const check = turn.child('checkpoint', `todo ${SECRET}`);
  check.end('error', { error: `hook threw: ${SECRET}` });
  turn.end('ok', { outcome: 'failed{rate_limited}', steps: 2, toolCalls: 1 });
  return tracer.end();
}

async function exported(record: TraceRecord, options: { agentName?: string } = {}) {
  const before = receiver.spans.length;
  const exporter = new OtelTraceExporter({
    endpoint: `${receiver.url}/v1/traces`,
    headers: { 'x-ingest-key': HEADER_SECRET },
    serviceName: 'support-agent',
    secrets: [SECRET],
    ...options,
  });
  exporter.export(record);
  await exporter.shutdown();
  return receiver.spans.slice(before);
}

describe('OtelTraceExporter', () => {
  it("sends the turn's spans with their W3C ids, parents, GenAI names, kinds, attributes and statuses", async () => {
    const record = turnTrace();
    const spans = await exported(record, { agentName: 'support' });
    const byName = (name: string) => spans.find((s) => s.name === name)!;
    expect(spans.map((s) => s.name).sort()).toEqual(
      [
        'invoke_agent support',
        'chat claude-sonnet-4-6',
        'execute_tool lookup_order',
        'policy lookup_order',
        'chat claude-sonnet-4-6',
        'todo [REDACTED]',
      ].sort(),
    );
    // One trace: the caller's; the turn is the caller's child, everything else hangs under it as recorded.
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([TRACE_ID]));
    const turn = byName('invoke_agent support');
    expect(turn.parentSpanId).toBe(CALLER_SPAN);
    const ids = new Map(record.spans.map((s) => [s.id, s.spanId]));
    for (const source of record.spans) {
      const sent = spans.find((s) => s.spanId === source.spanId);
      expect(sent, `span ${source.name} sent with its recorded id`).toBeDefined();
      expect(sent!.parentSpanId).toBe(source.parentId === undefined ? CALLER_SPAN : ids.get(source.parentId));
    }
    expect(turn.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'support',
      'gen_ai.conversation.id': 'conv-7',
      'gen_ai.provider.name': 'anthropic',
      'loopgate.turn': 2,
      'loopgate.outcome': 'failed{rate_limited}',
      'error.type': 'rate_limited',
    });
    expect(turn.status).toEqual({ code: 2, message: 'the turn ended failed{rate_limited}' });
    expect(turn.kind).toBe(1); // internal

    const [first, second] = spans.filter((s) => s.name === 'chat claude-sonnet-4-6').sort((a, b) => Number(a.startNs - b.startNs));
    expect(first!.kind).toBe(3); // client
    expect(first!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet-4-6',
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 30,
      'gen_ai.response.finish_reasons': ['tool_call'],
      'loopgate.step': 1,
      'loopgate.attempt': 1,
      'loopgate.turn': 2,
    });
    expect(first!.status.code).toBe(1);
    expect(second!.attributes['error.type']).toBe('rate_limited');
    expect(second!.attributes['gen_ai.usage.input_tokens']).toBeUndefined(); // none reported: not invented
    expect(second!.status.code).toBe(2);

    const tool = byName('execute_tool lookup_order');
    expect(tool.kind).toBe(1);
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup_order',
      'gen_ai.tool.call.id': 'toolu_1',
      'gen_ai.tool.type': 'function',
      'loopgate.side_effect': 'NONE',
      'loopgate.step': 1,
      'loopgate.turn': 2,
    });
    expect(Object.keys(tool.attributes).some((k) => k.includes('args'))).toBe(false); // arguments are opt-in in the conventions
    expect(byName('policy lookup_order').attributes).toMatchObject({ 'loopgate.decision': 'allow', 'gen_ai.tool.call.id': 'toolu_1' });

    // Times as recorded (milliseconds of the host's clock).
    const source = record.spans.find((s) => s.kind === 'tool')!;
    expect(tool.startNs).toBe(BigInt(source.start) * 1_000_000n);
    expect(tool.endNs).toBe(BigInt(source.end!) * 1_000_000n);
    expect(turn.resource['service.name']).toBe('support-agent');
  });

  it('sends the configured headers, and no secret in any name, attribute or resource', async () => {
    const requestsBefore = receiver.requests.length;
    const spans = await exported(turnTrace());
    const requests = receiver.requests.slice(requestsBefore);
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.every((r) => r.headers['x-ingest-key'] === HEADER_SECRET)).toBe(true);
    const body = requests.map((r) => r.body).join('\n');
    expect(body).not.toContain(SECRET);
    expect(body).not.toContain(HEADER_SECRET);
    expect(spans.find((s) => s.name.startsWith('todo'))!.attributes['loopgate.error']).toBe('hook threw: [REDACTED]');

    // A host whose tracer redacts nothing: the exporter still sends no secret.
    const unredacted = await exported(turnTrace({ tracerRedacts: false }));
    expect(JSON.stringify(unredacted.map((s) => [s.name, s.attributes]))).not.toContain(SECRET);
    expect(unredacted.find((s) => s.name.startsWith('todo'))!.attributes['loopgate.error']).toBe('hook threw: [REDACTED]');
  });

  it("an unsampled caller's turn is not sent; a trace without W3C context gets ids of its own, links intact", async () => {
    expect(await exported(turnTrace({ sampled: false }))).toEqual([]);

    const spans = await exported(turnTrace({ w3c: false }));
    expect(spans).toHaveLength(6);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    const root = spans.find((s) => s.name === 'invoke_agent')!;
    expect(root.parentSpanId).toBeUndefined();
    expect(spans.filter((s) => s !== root && s.name !== 'policy lookup_order').every((s) => s.parentSpanId === root.spanId)).toBe(true);
    expect(spans.find((s) => s.name === 'policy lookup_order')!.parentSpanId).toBe(spans.find((s) => s.name.startsWith('execute_tool'))!.spanId);
  });

  it('a root with W3C context but no caller is a root in its own trace', async () => {
    const spans = await exported(turnTrace({ parent: false, traceId: 'e'.repeat(32) }));
    const root = spans.find((s) => s.name === 'invoke_agent')!;
    expect(root.traceId).toBe('e'.repeat(32));
    expect(root.parentSpanId).toBeUndefined();
  });
});
