/**
 * Where finished traces go. The host ends and exports every turn's trace in a
 * `finally` (seed 004); an exporter that fails must not fail the turn.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { TraceExporter, TraceRecord } from '../kernel/index.ts';

/** Keeps traces in memory (tests, the harness). */
export class CollectingExporter implements TraceExporter {
  readonly traces: TraceRecord[] = [];
  export(trace: TraceRecord): void {
    this.traces.push(trace);
  }
}

/** Appends one JSON line per trace. Span attributes are already redacted by the tracer. */
export class JsonlFileExporter implements TraceExporter {
  readonly path: string;
  constructor(path: string) {
    this.path = path;
    mkdirSync(dirname(path), { recursive: true });
  }
  export(trace: TraceRecord): void {
    appendFileSync(this.path, `${JSON.stringify(trace)}\n`);
  }
}

export const NO_EXPORT: TraceExporter = { export() {} };

/** Sends each trace to several exporters (a JSON-lines file and a collector); one failing does not stop the others. */
export class FanOutExporter implements TraceExporter {
  readonly exporters: readonly TraceExporter[];
  constructor(exporters: readonly TraceExporter[]) {
    this.exporters = exporters;
  }
  export(trace: TraceRecord): void {
    for (const exporter of this.exporters) {
      try {
        void Promise.resolve(exporter.export(trace)).catch(() => undefined);
      } catch {
        // The next one still gets it.
      }
    }
  }
  async shutdown(): Promise<void> {
    await Promise.allSettled(this.exporters.map(async (e) => e.shutdown?.()));
  }
}
