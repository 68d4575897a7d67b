/**
 * W3C trace context (https://www.w3.org/TR/trace-context/) for a turn's trace.
 * A host that exports to a tracing system gives the tracer a trace id, the
 * caller's span (the turn's parent, from the request's `traceparent`) and a source
 * of span ids; every span then has its W3C id from the start, so a tool can pass
 * its own span on (`ToolRunContext.traceparent`) while the turn still runs, and
 * the exported spans carry the same ids. The kernel only formats: parsing an
 * incoming header is the host's job.
 */

/** The W3C identity of a turn's trace. Plain data: it is kept in the trace record. */
export interface TraceContext {
  /** 32 lowercase hex digits, not all zero. */
  readonly traceId: string;
  /** 16 lowercase hex digits: the caller's span, parent of the turn span. */
  readonly parentSpanId?: string;
  /** The caller's sampling decision (trace-flags bit 0). */
  readonly sampled: boolean;
}

/** What a tracer needs to give its spans W3C ids. */
export interface W3cTracing extends TraceContext {
  /** A new span id: 16 lowercase hex digits, not all zero, unique within the trace. */
  newSpanId(): string;
}

const TRACE_ID = /^(?!0{32})[0-9a-f]{32}$/;
const SPAN_ID = /^(?!0{16})[0-9a-f]{16}$/;

export function isTraceId(id: string): boolean {
  return TRACE_ID.test(id);
}

export function isSpanId(id: string): boolean {
  return SPAN_ID.test(id);
}

/** The `traceparent` header value naming `spanId` in `context`'s trace (version 00). */
export function formatTraceparent(context: TraceContext, spanId: string): string {
  return `00-${context.traceId}-${spanId}-${context.sampled ? '01' : '00'}`;
}
