/**
 * A command that writes reports to `out` (`run`, `fuzz`), from the moment its
 * inputs are checked until its own reports are written: an interrupt (SIGINT,
 * SIGTERM) leaves no report there — neither its own nor one an earlier run left,
 * which would pass for this one's (probe 31). `keep` (a baseline it reads) stays.
 */
import { resolve } from 'node:path';
import { removeReports } from '../report/write.ts';
import { whenInterrupted } from './interrupt.ts';

export interface EarlierReports {
  /** Removes the reports an earlier run left in `out` (call it once every input is checked, before the first case). */
  readonly remove: () => void;
  /** This command's reports are written, whole: an interrupt no longer touches `out`. */
  readonly stop: () => void;
}

export function earlierReports(out: string, reporters: readonly string[], keep: readonly string[] = []): EarlierReports {
  const removed = new Set<string>();
  // Where `out` is now: an interrupt after a tool moved the process (`process.chdir`) removes from there, not from the
  // tool's folder (review of stop 66, MED-5). The lines name `out` as given.
  const at = resolve(out);
  const kept = keep.map((path) => resolve(path));
  const remove = (dir = out, keeping = keep) => {
    for (const name of removeReports(dir, reporters, keeping)) removed.add(name);
  };
  const stop = whenInterrupted(() => {
    if (reporters.every((r) => r === 'console')) return 'no report was written';
    try {
      remove(at, kept);
    } catch (error) {
      // Interrupted before the run's own check: a file that is not loopgate's stays, and the line says why.
      return `no report was written to ${out}; ${error instanceof Error ? error.message : String(error)}`;
    }
    return `no report was written to ${out}${removed.size > 0 ? `; the reports an earlier run left there were removed (${[...removed].join(', ')})` : ''}`;
  });
  return { remove: () => remove(), stop };
}
