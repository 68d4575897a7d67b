/** How each way a model call, a tool or a turn can end shows in OpenTelemetry: finish reasons, error types, statuses. */
import { SpanStatusCode } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { Tracer, type Attributes, type SpanStatus } from '../../kernel/index.ts';
import { planGenAiSpans, providerOf } from './genai-spans.ts';

const redact = (t: string) => t;

function modelCall(status: SpanStatus, end: Attributes) {
  const tracer = new Tracer({ clock: { now: () => 0 }, traceId: 'c:0' });
  const turn = tracer.startSpan('turn', 'turn 0', undefined, { turn: 0 });
  turn.child('model_call', 'openai-responses:gpt-5', { step: 1, attempt: 2, model: 'gpt-5' }).end(status, end);
  turn.end('ok', { outcome: 'replied' });
  return planGenAiSpans(tracer.end(), { redact })[1]!;
}

describe('GenAI spans', () => {
  it.each([
    ['reply', 'ok', {}, ['stop'], undefined, SpanStatusCode.OK],
    ['tool_use', 'ok', {}, ['tool_call'], undefined, SpanStatusCode.OK],
    ['max_tokens', 'error', {}, ['length'], 'max_tokens', SpanStatusCode.ERROR],
    ['refusal', 'error', {}, ['content_filter'], 'refusal', SpanStatusCode.ERROR],
    ['context_window_exceeded', 'error', {}, undefined, 'context_window_exceeded', SpanStatusCode.ERROR],
    ['unknown', 'error', {}, undefined, 'unknown_stop_reason', SpanStatusCode.ERROR],
    ['transport_error', 'error', { kind: 'overloaded' }, undefined, 'overloaded', SpanStatusCode.ERROR],
    ['transport_error', 'cancelled', { kind: 'aborted' }, undefined, 'aborted', SpanStatusCode.UNSET],
  ] as const)('a model call ending %s (%s) → finish reasons %j, error.type %s', (result, status, extra, finish, errorType, code) => {
    const span = modelCall(status, { result, ...extra });
    expect(span.attributes['gen_ai.response.finish_reasons']).toEqual(finish);
    expect(span.attributes['error.type']).toBe(errorType);
    expect(span.status.code).toBe(code);
    expect(span.attributes).toMatchObject({ 'gen_ai.provider.name': 'openai', 'loopgate.attempt': 2, 'loopgate.status': status });
  });

  it('a turn that failed or filled the conversation is an ERROR with the reason; one cancelled or replied is not', () => {
    const turnWith = (outcome: string) => {
      const tracer = new Tracer({ clock: { now: () => 0 }, traceId: 'c:3' });
      tracer.startSpan('turn', 'turn 3', undefined, { turn: 3 }).end('ok', { outcome });
      return planGenAiSpans(tracer.end(), { redact })[0]!;
    };
    expect([turnWith('failed{max_steps}').status, turnWith('failed{max_steps}').attributes['error.type']]).toEqual([
      { code: SpanStatusCode.ERROR, message: 'the turn ended failed{max_steps}' },
      'max_steps',
    ]);
    expect(turnWith('conversation_full').attributes['error.type']).toBe('conversation_full');
    expect(turnWith('cancelled{user}').status).toEqual({ code: SpanStatusCode.OK });
    expect(turnWith('replied').attributes['error.type']).toBeUndefined();
  });

  it('a span still open at trace end is an ERROR naming it undetermined', () => {
    const tracer = new Tracer({ clock: { now: () => 0 }, traceId: 'c:0' });
    const turn = tracer.startSpan('turn', 'turn 0', undefined, { turn: 0 });
    turn.child('tool', 'slow', { tool: 'slow', callId: 'x', sideEffect: 'STATEFUL' });
    turn.end('ok', { outcome: 'replied' });
    const tool = planGenAiSpans(tracer.end(), { redact })[1]!;
    expect(tool.status).toEqual({ code: SpanStatusCode.ERROR, message: 'undetermined: the span was still open when the trace ended' });
    expect(tool.attributes).toMatchObject({ 'error.type': 'undetermined', 'loopgate.status': 'undetermined', 'loopgate.side_effect': 'STATEFUL' });
  });

  it('names the provider from the client name', () => {
    expect(['anthropic:claude', 'openai-chat:gpt', 'openai-responses:gpt', 'scripted'].map(providerOf)).toEqual(['anthropic', 'openai', 'openai', 'scripted']);
  });
});
