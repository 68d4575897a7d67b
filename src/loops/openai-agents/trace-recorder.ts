/**
 * A tracing processor for OpenAI Agents (processors are process-global: the
 * adapter sets it for its case and puts the default back when done): every span
 * the runner opens goes into the case's span book under the turn it ran in, and
 * every trace it ends is noted — a run whose trace never ends is invariant 8's
 * finding. Kinds: the `agent` span (one per run) → turn, `generation` and
 * `response` → model_call, `function` → tool, `guardrail` → policy; the `turn`
 * and `task` layers are flattened.
 */
import type { Span, Trace, TracingProcessor } from '@openai/agents';
import type { AttributeValue, Clock, SpanKind } from '../../kernel/index.ts';
import { SpanBook, type BookSpan } from '../support/span-book.ts';

const KINDS: Readonly<Record<string, SpanKind>> = {
  'app.turn': 'turn',
  agent: 'turn',
  generation: 'model_call',
  response: 'model_call',
  function: 'tool',
  guardrail: 'policy',
};

export class AgentsTraceRecorder implements TracingProcessor {
  readonly book: SpanBook;
  readonly #open = new Map<string, BookSpan>();
  readonly #traceTurn = new Map<string, number>();
  /** The turn whose run is going now. */
  turn = 0;
  /** The app's span over the turn's runs, where it has one (`SpanBook.underOne`): the parent of a span opened outside any. */
  root: BookSpan | undefined;

  constructor(clock: Clock) {
    this.book = new SpanBook(clock, (name) => KINDS[name]);
  }

  async onTraceStart(trace: Trace): Promise<void> {
    this.#traceTurn.set(trace.traceId, this.turn);
  }

  async onTraceEnd(trace: Trace): Promise<void> {
    const turn = this.#traceTurn.get(trace.traceId);
    if (turn !== undefined) this.book.traceEnded(turn);
  }

  async onSpanStart(span: Span<never>): Promise<void> {
    const data = span.spanData as { type: string; name?: string };
    const turn = this.#traceTurn.get(span.traceId) ?? this.turn;
    const parent = (span.parentId ? this.#open.get(span.parentId) : undefined) ?? this.root;
    const record = this.book.open(data.type, turn, parent?.id, data.name ? { 'agents.name': data.name } : {});
    this.#open.set(span.spanId, record);
  }

  async onSpanEnd(span: Span<never>): Promise<void> {
    const record = this.#open.get(span.spanId);
    if (!record) return;
    for (const [k, v] of Object.entries(span.spanData as Record<string, unknown>)) {
      if (k === 'type' || v === undefined) continue;
      record.attributes[`agents.${k}`] = (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : JSON.stringify(v)) as AttributeValue;
    }
    const error = span.error;
    if (error) record.attributes['agents.error'] = JSON.stringify(error);
    this.book.close(record, error ? (/cancel/i.test(error.message) ? 'cancelled' : 'error') : 'ok');
  }

  async shutdown(): Promise<void> {}
  async forceFlush(): Promise<void> {}
}
