/**
 * The trace (seed 004): spans for turn, model call, tool execution and policy
 * decision, with parent links. It doubles as a lifecycle guard:
 *
 * - first completion wins; ending a span twice is harmless;
 * - a span still open when the trace ends becomes `undetermined` — neither error nor
 *   missing, because the step never reported and a missing span looks like a step
 *   that never ran;
 * - in dev mode lifecycle misuse throws (after recording), in production it is
 *   recorded in `violations` and the request goes on.
 *
 * The turn span always completes and carries the outcome: turns never "error".
 */
import type { Clock } from '../clock.ts';
import { formatTraceparent, isSpanId, isTraceId, type TraceContext, type W3cTracing } from './trace-context.ts';

export type SpanKind = 'turn' | 'model_call' | 'tool' | 'policy' | 'compaction' | 'checkpoint' | 'backoff' | 'prompt';
export type SpanStatus = 'ok' | 'error' | 'cancelled' | 'undetermined';
export type AttributeValue = string | number | boolean | null | readonly string[];
export type Attributes = Readonly<Record<string, AttributeValue>>;

export interface SpanRecord {
  readonly id: string;
  readonly parentId: string | undefined;
  readonly kind: SpanKind;
  readonly name: string;
  readonly start: number;
  readonly end: number | undefined;
  readonly status: SpanStatus | undefined;
  readonly attributes: Attributes;
  /** The span's W3C id, when the tracer was given a trace context (`TracerOptions.w3c`). */
  readonly spanId?: string;
}

export interface TraceRecord {
  readonly traceId: string;
  /** The W3C trace the spans belong to, when the tracer was given one. */
  readonly context?: TraceContext;
  readonly spans: readonly SpanRecord[];
  /** Lifecycle misuse seen in production mode (dev mode throws instead). */
  readonly violations: readonly string[];
}

export interface TraceExporter {
  export(trace: TraceRecord): void | Promise<void>;
  /** Sends what is buffered and stops; a host calls it when it closes. */
  shutdown?(): void | Promise<void>;
}

export class TraceLifecycleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TraceLifecycleError';
  }
}

export interface SpanHandle {
  readonly id: string;
  readonly kind: SpanKind;
  setAttributes(attributes: Attributes): void;
  /** First completion wins; later calls are ignored. */
  end(status: SpanStatus, attributes?: Attributes): void;
  child(kind: SpanKind, name: string, attributes?: Attributes): SpanHandle;
  readonly ended: boolean;
  /** The W3C `traceparent` naming this span, to pass on to downstream calls (undefined without a trace context). */
  readonly traceparent: string | undefined;
}

interface MutableSpan {
  id: string;
  parentId: string | undefined;
  kind: SpanKind;
  name: string;
  start: number;
  end: number | undefined;
  status: SpanStatus | undefined;
  attributes: Record<string, AttributeValue>;
  spanId?: string;
}

export interface TracerOptions {
  readonly clock: Pick<Clock, 'now'>;
  readonly traceId: string;
  /** dev: misuse throws; production: misuse is recorded. Default production. */
  readonly mode?: 'dev' | 'production';
  /** Applied to every string attribute before it is stored (secret redaction). */
  readonly redact?: (text: string) => string;
  /** W3C trace context: every span gets a W3C span id when it starts (see trace-context.ts). */
  readonly w3c?: W3cTracing;
}

export class Tracer {
  readonly traceId: string;
  readonly #clock: Pick<Clock, 'now'>;
  readonly #mode: 'dev' | 'production';
  readonly #redact: (text: string) => string;
  readonly #spans: MutableSpan[] = [];
  readonly #violations: string[] = [];
  readonly #lateEnds = new Set<string>();
  readonly #w3c: W3cTracing | undefined;
  readonly #context: TraceContext | undefined;
  #nextId = 0;
  #ended: TraceRecord | undefined;

  constructor(options: TracerOptions) {
    this.traceId = options.traceId;
    this.#clock = options.clock;
    this.#mode = options.mode ?? 'production';
    this.#redact = options.redact ?? ((t) => t);
    const w3c = options.w3c;
    if (w3c) {
      if (!isTraceId(w3c.traceId)) throw new TypeError(`trace context: trace id ${JSON.stringify(w3c.traceId)} is not 32 lowercase hex digits (not all zero)`);
      if (w3c.parentSpanId !== undefined && !isSpanId(w3c.parentSpanId))
        throw new TypeError(`trace context: parent span id ${JSON.stringify(w3c.parentSpanId)} is not 16 lowercase hex digits (not all zero)`);
      this.#w3c = w3c;
      this.#context = Object.freeze({
        traceId: w3c.traceId,
        ...(w3c.parentSpanId !== undefined ? { parentSpanId: w3c.parentSpanId } : {}),
        sampled: w3c.sampled === true,
      });
    }
  }

  get ended(): boolean {
    return this.#ended !== undefined;
  }

  startSpan(kind: SpanKind, spanName: string, parent?: SpanHandle, attributes: Attributes = {}): SpanHandle {
    // A span's name may come from the model (a tool's name): redacted like its attributes.
    const name = this.#redact(spanName);
    if (this.#ended) this.#misuse(`span "${name}" (${kind}) started after the trace ended`);
    const span: MutableSpan = {
      id: `${this.traceId}.${this.#nextId++}`,
      parentId: parent?.id,
      kind,
      name,
      start: this.#clock.now(),
      end: undefined,
      status: undefined,
      attributes: this.#clean({}, attributes),
    };
    if (this.#w3c) span.spanId = this.#w3c.newSpanId();
    // A span started after the trace ended is not added: the exported record is final.
    if (!this.#ended) this.#spans.push(span);
    return new Span(span, this.#ops);
  }

  /** What every span handle of this trace calls back into (one object per trace, not per span). */
  readonly #ops: SpanOps = {
    setAttributes: (span, attributes) => {
      if (span.status !== undefined) return;
      this.#clean(span.attributes, attributes);
    },
    end: (span, status, attributes) => {
      if (this.#ended && span.status === 'undetermined' && !this.#lateEnds.has(span.id)) {
        this.#lateEnds.add(span.id);
        this.#misuse(`span "${span.name}" ended after the trace ended (it was recorded as undetermined)`);
        return;
      }
      if (span.status !== undefined) return; // first completion wins
      if (attributes) this.#clean(span.attributes, attributes);
      span.status = status;
      span.end = this.#clock.now();
    },
    child: (parent, kind, name, attributes) => this.startSpan(kind, name, parent, attributes),
    traceparent: (span) => (this.#context && span.spanId !== undefined ? formatTraceparent(this.#context, span.spanId) : undefined),
  };

  /**
   * Ends the trace: open spans become `undetermined`. Returns the final record.
   * Ending twice returns the first record. In dev mode, open spans throw after the
   * record is complete (so `finally` blocks can still export it).
   */
  end(): TraceRecord {
    if (this.#ended) return this.#ended;
    const open = this.#spans.filter((s) => s.status === undefined);
    const now = this.#clock.now();
    for (const span of open) {
      span.status = 'undetermined';
      span.end = now;
    }
    if (open.length > 0) {
      this.#violations.push(`spans left open at trace end: ${open.map((s) => `${s.kind}:${s.name}`).join(', ')}`);
    }
    // Nothing writes a span once the trace has ended (late ends and attributes are
    // refused), so the spans are frozen as they are instead of copied.
    for (const span of this.#spans) {
      Object.freeze(span.attributes);
      Object.freeze(span);
    }
    this.#ended = Object.freeze({
      traceId: this.traceId,
      ...(this.#context ? { context: this.#context } : {}),
      spans: Object.freeze(this.#spans.slice()),
      violations: Object.freeze([...this.#violations]),
    });
    if (open.length > 0 && this.#mode === 'dev') {
      throw new TraceLifecycleError(this.#violations[this.#violations.length - 1]!);
    }
    return this.#ended;
  }

  /** Every lifecycle violation seen so far, including any after the trace ended. */
  get violations(): readonly string[] {
    return [...this.#violations];
  }

  /** A snapshot of the spans so far (for tests and live views). */
  snapshot(): readonly SpanRecord[] {
    return this.#spans.map((s) => ({ ...s, attributes: { ...s.attributes } }));
  }

  #misuse(message: string): void {
    this.#violations.push(message);
    if (this.#mode === 'dev') throw new TraceLifecycleError(message);
  }

  /** Copies `attributes` into `into`, strings redacted; returns `into`. */
  #clean(into: Record<string, AttributeValue>, attributes: Attributes): Record<string, AttributeValue> {
    for (const key of Object.keys(attributes)) {
      const value = attributes[key];
      if (typeof value === 'string') into[key] = this.#redact(value);
      else if (Array.isArray(value)) into[key] = value.map((v: string) => this.#redact(v));
      else into[key] = value as AttributeValue;
    }
    return into;
  }
}

interface SpanOps {
  setAttributes(span: MutableSpan, attributes: Attributes): void;
  end(span: MutableSpan, status: SpanStatus, attributes: Attributes | undefined): void;
  child(parent: SpanHandle, kind: SpanKind, name: string, attributes: Attributes | undefined): SpanHandle;
  traceparent(span: MutableSpan): string | undefined;
}

/** A span handle: a small object over the span's record and its trace's callbacks. */
class Span implements SpanHandle {
  readonly id: string;
  readonly kind: SpanKind;
  readonly #span: MutableSpan;
  readonly #ops: SpanOps;

  constructor(span: MutableSpan, ops: SpanOps) {
    this.id = span.id;
    this.kind = span.kind;
    this.#span = span;
    this.#ops = ops;
  }

  get ended(): boolean {
    return this.#span.status !== undefined;
  }

  setAttributes(attributes: Attributes): void {
    this.#ops.setAttributes(this.#span, attributes);
  }

  end(status: SpanStatus, attributes?: Attributes): void {
    this.#ops.end(this.#span, status, attributes);
  }

  child(kind: SpanKind, name: string, attributes?: Attributes): SpanHandle {
    return this.#ops.child(this, kind, name, attributes);
  }

  get traceparent(): string | undefined {
    return this.#ops.traceparent(this.#span);
  }
}

/** A span handle that records nothing, for code paths run without a tracer. */
export const NO_SPAN: SpanHandle = {
  id: 'none',
  kind: 'turn',
  ended: false,
  traceparent: undefined,
  setAttributes() {},
  end() {},
  child() {
    return NO_SPAN;
  },
};
