/**
 * Progress while a run goes. On a terminal: one line rewritten in place (`\r`)
 * with the counts and the case running now; failures are printed above it so
 * they stay on screen. In CI (not a terminal): plain lines, one per finished case,
 * so logs read top to bottom.
 */
import { printable, STATUS_MARK } from './console.ts';
import { failureText, formatDuration, oneLine } from './format.ts';
import type { CaseResult } from './results.ts';

export interface ProgressOptions {
  /** Writing to a terminal (e.g. `process.stderr.isTTY`). */
  readonly tty: boolean;
  readonly write: (text: string) => void;
  /** Number of cases in the run, when known. */
  readonly total?: number;
  /** Terminal width; the live line is cut to fit so it never wraps (default 80). */
  readonly columns?: number;
}

export interface Progress {
  /** A case began (several may run at once). */
  start(id: string): void;
  /** A case ended; `startedAs` is the id it started under, when its result names it otherwise (redacted). */
  finish(result: CaseResult, startedAs?: string): void;
  /** The run ended: ends the live line. Safe to call twice. */
  done(): void;
}

const CLEAR_LINE = '\r\u001b[2K';

/** The line a finished case gets in CI logs (and, for failures, above the live line). */
export function finishedLine(c: CaseResult): string {
  const id = printable(c.id);
  switch (c.status) {
    case 'passed':
      return `${STATUS_MARK.passed} ${id} (${formatDuration(c.durationMs)})`;
    case 'failed':
      return `${STATUS_MARK.failed} ${id} — ${printable(oneLine(failureText(c), 500))}`;
    case 'skipped':
      return `${STATUS_MARK.skipped} ${id} skipped — ${printable(oneLine(c.skipReason ?? 'no reason given', 500))}`;
  }
}

export function createProgress(options: ProgressOptions): Progress {
  const counts = { passed: 0, failed: 0, skipped: 0 };
  const running: string[] = [];
  let drawn = false;
  let ended = false;

  const liveLine = (): string => {
    const finished = counts.passed + counts.failed + counts.skipped;
    const of = options.total !== undefined ? `${finished}/${options.total}` : `${finished}`;
    const now = running.length > 0 ? `  ${printable(running[running.length - 1]!)}${running.length > 1 ? ` (+${running.length - 1})` : ''}` : '';
    const line = `[${of}] ${STATUS_MARK.passed} ${counts.passed}  ${STATUS_MARK.failed} ${counts.failed}  ${STATUS_MARK.skipped} ${counts.skipped}${now}`;
    const columns = Math.max(20, options.columns ?? 80) - 1;
    return line.length > columns ? `${line.slice(0, columns - 1)}…` : line;
  };
  const redraw = () => {
    options.write(`${CLEAR_LINE}${liveLine()}`);
    drawn = true;
  };

  return {
    start(id) {
      if (ended) return;
      running.push(id);
      if (options.tty) redraw();
    },
    finish(result, startedAs = result.id) {
      if (ended) return;
      const at = running.lastIndexOf(startedAs);
      if (at >= 0) running.splice(at, 1);
      counts[result.status]++;
      if (!options.tty) {
        options.write(`${finishedLine(result)}\n`);
        return;
      }
      if (result.status === 'failed') options.write(`${CLEAR_LINE}${finishedLine(result)}\n`);
      redraw();
    },
    done() {
      if (ended) return;
      ended = true;
      if (options.tty && drawn) options.write(`${CLEAR_LINE}${liveLine()}\n`);
    },
  };
}
