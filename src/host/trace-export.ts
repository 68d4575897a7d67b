/**
 * Where finished traces go. The host ends and exports every turn's trace in a
 * `finally` (seed 004); an exporter that fails must not fail the turn.
 */
import { appendFileSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { readBytes } from '../files/index.ts';
import type { TraceExporter, TraceRecord } from '../kernel/index.ts';

/** Keeps traces in memory (tests, the harness). */
export class CollectingExporter implements TraceExporter {
  readonly traces: TraceRecord[] = [];
  export(trace: TraceRecord): void {
    this.traces.push(trace);
  }
}

/**
 * Appends one JSON line per trace. Span attributes are already redacted by the
 * tracer. A file whose last line has no line break (left so by another tool, or
 * cut short) gets one first: the first trace goes on a line of its own.
 */
export class JsonlFileExporter implements TraceExporter {
  readonly path: string;
  #lineOpen: boolean;
  constructor(path: string) {
    this.path = path;
    mkdirSync(dirname(path), { recursive: true });
    this.#lineOpen = endsInsideALine(path);
  }
  export(trace: TraceRecord): void {
    appendFileSync(this.path, `${this.#lineOpen ? '\n' : ''}${JSON.stringify(trace)}\n`);
    this.#lineOpen = false;
  }
}

/** Whether the file at `path` is there, not empty, and its last byte is not a line break. */
function endsInsideALine(path: string): boolean {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return false;
  }
  const last = size > 0 ? readBytes(path, size - 1, 1) : undefined;
  return last !== undefined && last.length === 1 && last[0] !== 0x0a;
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
