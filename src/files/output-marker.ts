/**
 * A folder of loopgate's own output holding scenario-shaped files (a fuzz run's counterexamples) carries a marker, so
 * that a scenario folder it sits in — `scenarios: ['.']` holds the default reports/, `fuzz --out sc/x` a folder of sc —
 * does not take those files as cases of the suite. Named outright, the folder or a file in it is read as ever.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const OUTPUT_MARKER = '.loopgate-output';

const TEXT =
  'Written by loopgate: the counterexamples a fuzz search found. A scenario folder holding this folder does not take\n' +
  'its files as cases; run one by naming it (loopgate run FILE), or move it into a scenario folder to keep it.\n';

/** Marks `dir` (which exists) as loopgate's output. */
export async function markAsOutput(dir: string): Promise<void> {
  await writeFile(join(dir, OUTPUT_MARKER), TEXT, 'utf8');
}

/** Whether `dir` is marked as loopgate's output. */
export function isMarkedOutput(dir: string): boolean {
  return existsSync(join(dir, OUTPUT_MARKER));
}
