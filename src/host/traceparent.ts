/**
 * The W3C `traceparent` a caller gives `AgentHost.handle`: parsed with
 * OpenTelemetry's own W3C trace-context parser, so loopgate accepts exactly what
 * the propagators of the caller's tracing library send. The caller's span becomes
 * the parent of the turn that takes the message.
 */
import { trace } from '@opentelemetry/api';
import { parseTraceParent } from '@opentelemetry/core';
import type { TraceContext } from '../kernel/index.ts';

const SAMPLED = 0x01;

/** The caller's trace, or why the header is not a traceparent. */
export function parseTraceparent(value: unknown): { readonly context: TraceContext } | { readonly error: string } {
  const shown = JSON.stringify(String(value).slice(0, 80));
  const expected = 'expected "00-<32 hex trace id>-<16 hex parent span id>-<2 hex flags>" (W3C trace context), ids not all zero';
  if (typeof value !== 'string') return { error: `invalid traceparent ${shown}: it must be a string; ${expected}` };
  const parsed = value.length <= 512 ? parseTraceParent(value.trim()) : null;
  if (!parsed || !trace.isSpanContextValid(parsed)) return { error: `invalid traceparent ${shown}: ${expected}` };
  return { context: { traceId: parsed.traceId, parentSpanId: parsed.spanId, sampled: (parsed.traceFlags & SAMPLED) === SAMPLED } };
}
