/**
 * The OpenTelemetry SDK draws span and trace ids from its id generator as a span
 * starts. loopgate's spans already have their W3C ids (a tool passed its own on
 * while the turn ran), so the exporter plans the next ids just before it starts
 * each span; with nothing planned (a trace without W3C context) ids are random.
 */
import { type IdGenerator, RandomIdGenerator } from '@opentelemetry/sdk-trace';

export class PlannedIds implements IdGenerator {
  readonly #random = new RandomIdGenerator();
  #traceId: string | undefined;
  #spanId: string | undefined;

  /** Runs `start` with these ids planned (the SDK asks for them synchronously inside it). */
  with<T>(traceId: string | undefined, spanId: string | undefined, start: () => T): T {
    this.#traceId = traceId;
    this.#spanId = spanId;
    try {
      return start();
    } finally {
      this.#traceId = undefined;
      this.#spanId = undefined;
    }
  }

  generateTraceId(): string {
    return this.#traceId ?? this.#random.generateTraceId();
  }

  generateSpanId(): string {
    return this.#spanId ?? this.#random.generateSpanId();
  }
}
