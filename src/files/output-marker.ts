/**
 * A folder of loopgate's own output holding scenario-shaped files (a fuzz run's counterexamples) carries a marker, so
 * that a scenario folder it sits in — `scenarios: ['.']` holds the default reports/, `fuzz --out sc/x` a folder of sc —
 * does not take those files as cases of the suite. Named outright, the folder or a file in it is read as ever. The
 * marker names the folder it was written in and holds only there: a folder moved into a scenario folder, to keep its
 * counterexamples as regressions, is read (review of stop 59: moved, it hid its files without a word).
 */
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

export const OUTPUT_MARKER = '.loopgate-output';

const FOLDER = 'folder: ';

function text(dir: string): string {
  return (
    'Written by loopgate: the counterexamples a fuzz search found. A scenario folder holding this folder, here, does\n' +
    'not take its files as cases; run one by naming it (loopgate run FILE). Moved elsewhere, the folder is read again.\n' +
    `${FOLDER}${resolve(dir)}\n`
  );
}

/** Marks `dir` (which exists) as loopgate's output, where it is. */
export async function markAsOutput(dir: string): Promise<void> {
  await writeFile(join(dir, OUTPUT_MARKER), text(dir), 'utf8');
}

/** Whether `dir` is marked as loopgate's output, and still where it was marked. */
export function isMarkedOutput(dir: string): boolean {
  const marker = join(dir, OUTPUT_MARKER);
  if (!existsSync(marker)) return false;
  try {
    const line = readFileSync(marker, 'utf8')
      .split('\n')
      .find((l) => l.startsWith(FOLDER));
    return line !== undefined && line.slice(FOLDER.length) === resolve(dir);
  } catch {
    return false; // unreadable: not ours to trust
  }
}
