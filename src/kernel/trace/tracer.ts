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

/**
 * An attribute value worked out when the span's record is built rather than when
 * it is set (the arguments of a tool call, as text): `compute` must give the same
 * answer then as now — it may only read values that cannot change (frozen).
 */
export class Deferred {
  readonly compute: () => AttributeValue;
  constructor(compute: () => AttributeValue) {
    this.compute = compute;
  }
}

/** What span handles take: attribute values, or values deferred to the record. */
export type SpanAttributes = Readonly<Record<string, AttributeValue | Deferred>>;

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
  setAttributes(attributes: SpanAttributes): void;
  /** First completion wins; later calls are ignored. */
  end(status: SpanStatus, attributes?: SpanAttributes): void;
  child(kind: SpanKind, name: string, attributes?: SpanAttributes): SpanHandle;
  readonly ended: boolean;
  /** The W3C `traceparent` naming this span, to pass on to downstream calls (undefined without a trace context). */
  readonly traceparent: string | undefined;
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

/**
 * Spans are stored compactly: one object per span, which is also its handle,
 * holding the attributes as they were given (the callers' own frozen-by-contract
 * literals, `Attributes` is read-only) and its name as given. Nothing is copied
 * or redacted while the turn runs; `end()` (and `snapshot()`) build each span's
 * record once — name and string attributes redacted, the attribute sets merged
 * in the order they were given (start, `setAttributes`, end; a later value wins,
 * in the first one's place) — and the record is what it always was.
 */
export class Tracer {
  readonly traceId: string;
  readonly #clock: Pick<Clock, 'now'>;
  readonly #mode: 'dev' | 'production';
  readonly #redact: (text: string) => string;
  readonly #spans: SpanNode[] = [];
  readonly #violations: string[] = [];
  readonly #w3c: W3cTracing | undefined;
  readonly #context: TraceContext | undefined;
  #ended: TraceRecord | undefined;
  /** `${traceId}.`, the start of every span id (made once a trace, not once a span). */
  #idPrefix: string | undefined;

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

  startSpan(kind: SpanKind, spanName: string, parent?: SpanHandle, attributes?: SpanAttributes): SpanHandle {
    if (this.#ended) this.#misuse(`span "${this.#redact(spanName)}" (${kind}) started after the trace ended`);
    const span = new SpanNode(this.#ops, this.#spans.length, kind, spanName, parent, this.#clock.now(), attributes, this.#w3c?.newSpanId());
    // A span started after the trace ended is not added: the exported record is final.
    if (!this.#ended) this.#spans.push(span);
    return span;
  }

  /** What every span of this trace calls back into (one object per trace, not per span). */
  readonly #ops: TraceOps = {
    idPrefix: () => (this.#idPrefix ??= `${this.traceId}.`),
    now: () => this.#clock.now(),
    ended: () => this.#ended !== undefined,
    lateEnd: (span) => this.#misuse(`span "${this.#redact(span.rawName)}" ended after the trace ended (it was recorded as undetermined)`),
    start: (kind, name, parent, attributes) => this.startSpan(kind, name, parent, attributes),
    traceparent: (spanId) => (this.#context && spanId !== undefined ? formatTraceparent(this.#context, spanId) : undefined),
  };

  /**
   * Ends the trace: open spans become `undetermined`. Returns the final record.
   * Ending twice returns the first record. In dev mode, open spans throw after the
   * record is complete (so `finally` blocks can still export it).
   */
  end(): TraceRecord {
    if (this.#ended) return this.#ended;
    const now = this.#clock.now();
    const open: string[] = [];
    for (let i = 0; i < this.#spans.length; i++) {
      const span = this.#spans[i]!;
      if (span.closeUndetermined(now)) open.push(`${span.kind}:${this.#redact(span.rawName)}`);
    }
    if (open.length > 0) this.#violations.push(`spans left open at trace end: ${open.join(', ')}`);
    // Each span's record is built here, once: name and attributes cleaned, the
    // attribute sets merged. (Built when first read instead, with a getter on the
    // record, the getter's closure — the whole trace — stayed reachable from the
    // engine's hidden classes until the next full collection: every turn's objects
    // outlived the young generation.)
    const records = new Array<SpanRecord>(this.#spans.length);
    for (let i = 0; i < records.length; i++) records[i] = this.#spans[i]!.record(this.#redact, true);
    this.#ended = Object.freeze({
      traceId: this.traceId,
      ...(this.#context ? { context: this.#context } : {}),
      spans: Object.freeze(records),
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
    return this.#spans.map((s) => s.record(this.#redact, false));
  }

  #misuse(message: string): void {
    this.#violations.push(message);
    if (this.#mode === 'dev') throw new TraceLifecycleError(message);
  }
}

interface TraceOps {
  /** What every span id starts with: the trace id and a dot. */
  idPrefix(): string;
  now(): number;
  ended(): boolean;
  /** A span ended after the trace ended: misuse (dev mode throws). */
  lateEnd(span: SpanNode): void;
  start(kind: SpanKind, name: string, parent: SpanHandle, attributes: SpanAttributes | undefined): SpanHandle;
  traceparent(spanId: string | undefined): string | undefined;
}

/** One span: its handle and its data, attributes kept as given until its record is built. */
class SpanNode implements SpanHandle {
  readonly kind: SpanKind;
  readonly #ops: TraceOps;
  readonly #n: number;
  #id: string | undefined;
  readonly #parent: SpanHandle | undefined;
  readonly #name: string;
  readonly #start: number;
  #end: number | undefined;
  #status: SpanStatus | undefined;
  /** The attribute sets given, in order (start, setAttributes..., end): the first three in fields, any more in a list. */
  #attributes: SpanAttributes | undefined;
  #second: SpanAttributes | undefined = undefined;
  #third: SpanAttributes | undefined = undefined;
  #more: SpanAttributes[] | undefined = undefined;
  readonly #spanId: string | undefined;
  #lateEndSeen = false;

  constructor(
    ops: TraceOps,
    n: number,
    kind: SpanKind,
    name: string,
    parent: SpanHandle | undefined,
    start: number,
    attributes: SpanAttributes | undefined,
    spanId: string | undefined,
  ) {
    this.#ops = ops;
    this.#n = n;
    this.kind = kind;
    this.#name = name;
    this.#parent = parent;
    this.#start = start;
    this.#attributes = attributes;
    this.#spanId = spanId;
  }

  get id(): string {
    return (this.#id ??= this.#ops.idPrefix() + this.#n);
  }

  /** The name as given (redact before showing it). */
  get rawName(): string {
    return this.#name;
  }

  get ended(): boolean {
    return this.#status !== undefined;
  }

  get traceparent(): string | undefined {
    return this.#ops.traceparent(this.#spanId);
  }

  setAttributes(attributes: SpanAttributes): void {
    if (this.#status !== undefined) return;
    this.#add(attributes);
  }

  end(status: SpanStatus, attributes?: SpanAttributes): void {
    if (this.#status === 'undetermined' && !this.#lateEndSeen && this.#ops.ended()) {
      this.#lateEndSeen = true;
      this.#ops.lateEnd(this);
      return;
    }
    if (this.#status !== undefined) return; // first completion wins
    if (attributes) this.#add(attributes);
    this.#status = status;
    this.#end = this.#ops.now();
  }

  child(kind: SpanKind, name: string, attributes?: SpanAttributes): SpanHandle {
    return this.#ops.start(kind, name, this, attributes);
  }

  /** At trace end: an open span becomes undetermined (returns whether it was open). */
  closeUndetermined(now: number): boolean {
    if (this.#status !== undefined) return false;
    this.#status = 'undetermined';
    this.#end = now;
    return true;
  }

  #add(attributes: SpanAttributes): void {
    if (this.#attributes === undefined) this.#attributes = attributes;
    else if (this.#second === undefined) this.#second = attributes;
    else if (this.#third === undefined) this.#third = attributes;
    else (this.#more ??= []).push(attributes);
  }

  /** The span's record: name and string attributes redacted, attribute sets merged; frozen when final. */
  record(redact: (text: string) => string, final: boolean): SpanRecord {
    const attributes = this.#attributes === undefined ? {} : cleaned(this.#attributes, this.#second, this.#third, this.#more, redact);
    const record: { -readonly [K in keyof SpanRecord]: SpanRecord[K] } = {
      id: this.id,
      parentId: this.#parent?.id,
      kind: this.kind,
      name: redact(this.#name),
      start: this.#start,
      end: this.#end,
      status: this.#status,
      attributes: final ? Object.freeze(attributes) : attributes,
    };
    if (this.#spanId !== undefined) record.spanId = this.#spanId;
    return final ? Object.freeze(record) : record;
  }
}

/**
 * The attribute sets merged (a later value wins, in the first one's place: what
 * an object spread does), deferred values worked out, strings redacted — a new
 * object, the sets given are not touched. Merged with spreads first and fixed up
 * in place after: far cheaper than adding the keys one by one to an empty object.
 * (Attribute keys are strings: a symbol key, outside the type, would now be copied.)
 */
function cleaned(
  first: SpanAttributes,
  second: SpanAttributes | undefined,
  third: SpanAttributes | undefined,
  more: readonly SpanAttributes[] | undefined,
  redact: (text: string) => string,
): Record<string, AttributeValue> {
  let into: Record<string, AttributeValue | Deferred>;
  if (second === undefined) into = { ...first };
  else if (third === undefined) into = { ...first, ...second };
  else into = { ...first, ...second, ...third };
  if (more !== undefined) for (const set of more) into = { ...into, ...set };
  for (const key in into) {
    const given = into[key];
    if (typeof given === 'string') {
      const text = redact(given);
      if (text !== given) into[key] = text;
    } else if (typeof given === 'object' && given !== null) {
      const value = given instanceof Deferred ? given.compute() : given;
      if (typeof value === 'string') into[key] = redact(value);
      else if (Array.isArray(value)) into[key] = value.map((v: string) => redact(v));
      else into[key] = value as AttributeValue;
    }
  }
  return into as Record<string, AttributeValue>;
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
