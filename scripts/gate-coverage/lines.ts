/**
 * Which lines of a source file the gate ran, from V8's block coverage
 * (`NODE_V8_COVERAGE`) of one or more processes, merged: a character counts as
 * run when any process ran it. A line is code when what Node executes of it
 * (the source with its types stripped) holds more than closing punctuation; a
 * code line is run when any of its characters is.
 */
import { stripTypeScriptTypes } from 'node:module';

/** One script's coverage in a V8 coverage file (`result[i]`). */
export interface ScriptCoverage {
  readonly url: string;
  readonly functions: readonly { readonly ranges: readonly { readonly startOffset: number; readonly endOffset: number; readonly count: number }[] }[];
}

/**
 * Marks the characters of `length` that this script's coverage says ran, into
 * `ran` (1 = ran). V8 lists a function's ranges outermost first, an inner range
 * overriding the one around it, so they are applied in order.
 */
export function markRan(script: ScriptCoverage, length: number, ran: Uint8Array): void {
  const counts = new Int32Array(length);
  for (const fn of script.functions) {
    for (const range of fn.ranges) {
      const end = Math.min(range.endOffset, length);
      for (let i = range.startOffset; i < end; i++) counts[i] = range.count;
    }
  }
  for (let i = 0; i < length; i++) if (counts[i]! > 0) ran[i] = 1;
}

/** Closing punctuation alone is no statement of its own (`}`, `});`, `],`). */
const PUNCTUATION_ONLY = /^[\s})\];,]*$/;

export interface LineCoverage {
  /** 1-based numbers of the code lines. */
  readonly code: readonly number[];
  /** 1-based numbers of the code lines no process ran. */
  readonly notRun: readonly number[];
}

/** The code lines of a TypeScript source and which of them never ran (`ran` as `markRan` filled it). */
export function lineCoverage(source: string, ran: Uint8Array): LineCoverage {
  const executed = stripTypeScriptTypes(source, { mode: 'strip' });
  const code: number[] = [];
  const notRun: number[] = [];
  let offset = 0;
  const lines = executed.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!;
    const text = withoutComments(line);
    if (text.trim() !== '' && !PUNCTUATION_ONLY.test(text) && !/^\s*import\s/.test(text)) {
      code.push(n + 1);
      let hit = false;
      for (let i = 0; i < line.length && !hit; i++) if (line[i] !== ' ' && line[i] !== '\t' && ran[offset + i]) hit = true;
      if (!hit) notRun.push(n + 1);
    }
    offset += line.length + 1;
  }
  return { code, notRun };
}

/** A line without a `//` comment or the inside of a block comment (a rough cut: enough for lines of code). */
function withoutComments(line: string): string {
  const t = line.trim();
  if (t.startsWith('*') || t.startsWith('/*') || t.startsWith('//')) return '';
  const at = line.indexOf(' //');
  return at >= 0 && !line.slice(0, at).includes("'") && !line.slice(0, at).includes('`') ? line.slice(0, at) : line;
}

/** Line numbers as spans: [3, 4, 5, 9] → "3-5, 9". */
export function spans(lines: readonly number[]): string {
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const start = lines[i]!;
    let end = start;
    while (i + 1 < lines.length && lines[i + 1] === end + 1) end = lines[++i]!;
    out.push(start === end ? `${start}` : `${start}-${end}`);
    i++;
  }
  return out.join(', ');
}
