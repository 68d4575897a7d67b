/**
 * A recording OpenTelemetry `Tracer` for the AI SDK's `experimental_telemetry`
 * (no OTel SDK needed): every span the SDK opens goes into the case's span book,
 * its parent tracked across awaits, its status as the SDK sets it, its recorded
 * exception deciding `cancelled` (our PeerCancel) from `error`. Names map to
 * loopgate kinds: `ai.generateText` → turn, `ai.generateText.doGenerate` →
 * model_call, `ai.toolCall` → tool.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Attributes as OtelAttributes, Span, SpanContext, SpanStatus, Tracer } from '@opentelemetry/api';
import type { AttributeValue, Clock, SpanKind } from '../../kernel/index.ts';
import { SpanBook, type BookSpan } from '../support/span-book.ts';

const KINDS: Readonly<Record<string, SpanKind>> = {
  // The app's turn over several generateText runs (approvals answered between them): see AiSdkTurns.
  'app.turn': 'turn',
  'ai.generateText': 'turn',
  'ai.streamText': 'turn',
  'ai.generateText.doGenerate': 'model_call',
  'ai.streamText.doStream': 'model_call',
  'ai.toolCall': 'tool',
};

export class OtelRecorder {
  readonly book: SpanBook;
  readonly tracer: Tracer;
  readonly #active = new AsyncLocalStorage<BookSpan>();
  /** The turn whose `generateText` runs now. */
  turn = 0;
  /** The app's span over the turn's generateText runs, where it has one (`SpanBook.underOne`): the parent of a span opened outside any. */
  root: BookSpan | undefined;

  constructor(clock: Clock) {
    this.book = new SpanBook(clock, (name) => KINDS[name]);
    const start = (name: string, attributes: OtelAttributes | undefined): RecordingSpan => {
      const parent = this.#active.getStore() ?? this.root;
      return new RecordingSpan(this.book, this.book.open(name, parent?.turn ?? this.turn, parent?.id, plain(attributes)));
    };
    const active = this.#active;
    this.tracer = {
      startSpan: (name: string, options?: { attributes?: OtelAttributes }) => start(name, options?.attributes),
      startActiveSpan: (name: string, ...rest: unknown[]) => {
        const fn = rest.find((r) => typeof r === 'function') as (span: Span) => unknown;
        const options = (typeof rest[0] === 'object' ? rest[0] : undefined) as { attributes?: OtelAttributes } | undefined;
        const span = start(name, options?.attributes);
        return active.run(span.record, () => fn(span));
      },
    } as Tracer;
  }
}

class RecordingSpan implements Span {
  readonly #book: SpanBook;
  readonly record: BookSpan;
  #status: 'ok' | 'error' | 'cancelled' = 'ok';

  constructor(book: SpanBook, record: BookSpan) {
    this.#book = book;
    this.record = record;
  }
  spanContext(): SpanContext {
    return { traceId: '0'.repeat(32), spanId: this.record.id.padStart(16, '0'), traceFlags: 1 };
  }
  setAttribute(key: string, value: unknown): this {
    const v = plainValue(value);
    if (v !== undefined) this.record.attributes[key] = v;
    return this;
  }
  setAttributes(attributes: OtelAttributes): this {
    Object.assign(this.record.attributes, plain(attributes));
    return this;
  }
  addEvent(): this {
    return this;
  }
  addLink(): this {
    return this;
  }
  addLinks(): this {
    return this;
  }
  setStatus(status: SpanStatus): this {
    if (status.code === 2 && this.#status !== 'cancelled') this.#status = 'error';
    if (status.message) this.record.attributes['status.message'] = status.message;
    return this;
  }
  updateName(): this {
    return this;
  }
  end(): void {
    this.#book.close(this.record, this.#status);
  }
  isRecording(): boolean {
    return this.record.end === undefined;
  }
  recordException(exception: unknown): void {
    const e = exception as { name?: string; message?: string };
    if (e?.name === 'PeerCancel') this.#status = 'cancelled';
    this.record.attributes['exception.message'] = String(e?.message ?? exception);
  }
}

function plain(attributes: OtelAttributes | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const [k, v] of Object.entries(attributes ?? {})) {
    const value = plainValue(v);
    if (value !== undefined) out[k] = value;
  }
  return out;
}

function plainValue(v: unknown): AttributeValue | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null) return v;
  if (Array.isArray(v)) return v.map(String);
  return JSON.stringify(v);
}
