/**
 * Exports each turn's trace to OpenTelemetry, on the official SDK: the spans
 * planned by genai-spans.ts (GenAI semantic conventions plus `loopgate.*`) are
 * replayed into the SDK with their recorded times, W3C ids and parent links, and
 * sent by a batch processor — by default as OTLP over HTTP (JSON) to `endpoint`.
 *
 * - A turn whose request carried a `traceparent` is a child of the caller's span,
 *   in the caller's trace; the caller's sampling decision is kept (an unsampled
 *   caller's turns are not sent).
 * - The provider is private to the exporter: it never becomes the process's global
 *   tracer provider, so an application's own OpenTelemetry setup is untouched.
 * - Every string sent — span names and attributes — passes a redactor built from
 *   the secrets it is given (the OTLP header values among them) and those in the
 *   environment; the tracer redacted attributes already, this covers names.
 * - `export` never throws into the turn; a collector that is down loses spans, not
 *   turns. `shutdown` (the host calls it on close) sends what is buffered.
 */
import { type Context, ROOT_CONTEXT, type Span, trace, TraceFlags, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { createRedactor, secretsFromEnv, type Redactor, type TraceExporter, type TraceRecord } from '../../kernel/index.ts';
import { planGenAiSpans } from './genai-spans.ts';
import { PlannedIds } from './planned-ids.ts';

export interface OtelExporterOptions {
  /** The collector's OTLP/HTTP traces URL, e.g. `http://localhost:4318/v1/traces`. */
  readonly endpoint?: string;
  /** Sent with every export (e.g. an API key); their values are treated as secrets. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The resource's `service.name`. Default `loopgate`. */
  readonly serviceName?: string;
  /** `gen_ai.agent.name` of every turn span. */
  readonly agentName?: string;
  /** Values never to be sent, beyond the header values and the environment's secrets. */
  readonly secrets?: readonly string[];
  /** Longest an export request may take (ms). Default 10 000. */
  readonly timeoutMs?: number;
  /** An SDK span exporter instead of OTLP/HTTP (another protocol, tests). */
  readonly spanExporter?: SpanExporter;
}

export class OtelTraceExporter implements TraceExporter {
  readonly #provider: TracerProvider;
  readonly #tracer: Tracer;
  readonly #ids = new PlannedIds();
  readonly #redact: Redactor;
  readonly #agentName: string | undefined;

  constructor(options: OtelExporterOptions = {}) {
    const headers = options.headers ?? {};
    this.#redact = createRedactor({ secrets: [...secretsFromEnv(), ...(options.secrets ?? []), ...Object.values(headers)] });
    this.#agentName = options.agentName;
    const exporter =
      options.spanExporter ??
      new OTLPTraceExporter({
        ...(options.endpoint !== undefined ? { url: options.endpoint } : {}),
        headers: { ...headers },
        ...(options.timeoutMs !== undefined ? { timeoutMillis: options.timeoutMs } : {}),
      });
    this.#provider = new TracerProvider({
      idGenerator: this.#ids,
      resource: defaultResource().merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName ?? 'loopgate' })),
      spanProcessors: [new BatchSpanProcessor({ exporter })],
    });
    this.#tracer = this.#provider.getTracer('loopgate');
  }

  export(record: TraceRecord): void {
    try {
      this.#replay(record);
    } catch {
      // A trace that cannot be replayed is lost; the turn is not.
    }
  }

  #replay(record: TraceRecord): void {
    const plans = planGenAiSpans(record, { redact: this.#redact, ...(this.#agentName ? { agentName: this.#agentName } : {}) });
    const context = record.context;
    const callerContext: Context =
      context?.parentSpanId !== undefined
        ? trace.setSpanContext(ROOT_CONTEXT, {
            traceId: context.traceId,
            spanId: context.parentSpanId,
            traceFlags: context.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
            isRemote: true,
          })
        : ROOT_CONTEXT;
    const started = new Map<string, Span>();
    for (const plan of plans) {
      const source = plan.source;
      const parent = source.parentId !== undefined ? started.get(source.parentId) : undefined;
      const parentContext = parent ? trace.setSpan(ROOT_CONTEXT, parent) : callerContext;
      const span = this.#ids.with(context?.traceId, source.spanId, () =>
        this.#tracer.startSpan(plan.name, { kind: plan.kind, attributes: plan.attributes, startTime: source.start }, parentContext),
      );
      started.set(source.id, span);
    }
    for (const plan of plans) {
      const span = started.get(plan.source.id)!;
      span.setStatus(plan.status);
      span.end(plan.source.end ?? plan.source.start);
    }
  }

  /** Sends what is buffered now. */
  flush(): Promise<void> {
    return this.#provider.forceFlush();
  }

  /** Sends what is buffered and stops. */
  shutdown(): Promise<void> {
    return this.#provider.shutdown();
  }
}
