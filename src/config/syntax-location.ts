/**
 * Where a config — or a file it imports — fails to parse, for the one-line
 * error. Node puts it in the first lines of the SyntaxError's stack when it
 * strips TypeScript: `FILE:LINE`, the source line, and a caret under the column
 * (no caret when the error lies past the line's end, as at the end of the file).
 * For JavaScript modules the stack carries no location: `node --check FILE`
 * prints the same header, so it is asked — on this error path only, bounded.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface SyntaxLocation {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

const CHECK_TIMEOUT_MS = 10_000;

/**
 * `FILE:LINE`, then a few source lines around the error with a caret line under
 * its column, then the error itself. Without a caret the error lies past the
 * end of the line: the column after its last character.
 */
function locationHeader(text: string): SyntaxLocation | undefined {
  const lines = text.split(/\r?\n/);
  const header = /^(.+?):(\d+)$/.exec(lines[0] ?? '');
  if (!header) return undefined;
  const file = header[1]!.startsWith('file://') ? fileURLToPath(header[1]!) : header[1]!;
  const line = Number(header[2]);
  const end = lines.findIndex((l, i) => i > 0 && /^\w*Error\b/.test(l));
  const snippet = lines.slice(1, end === -1 ? lines.length : end);
  const caret = snippet.find((l) => /^\s*\^+\s*$/.test(l));
  if (caret !== undefined) return { file, line, column: caret.indexOf('^') + 1 };
  let source: string | undefined;
  try {
    source = readFileSync(file, 'utf8').split(/\r?\n/)[line - 1];
  } catch {
    source = undefined;
  }
  return { file, line, column: (source ?? snippet[0] ?? '').length + 1 };
}

/** Where `error`, thrown importing `file`, says the syntax is wrong; undefined for other errors or when no place is known. */
export function syntaxLocation(error: unknown, file: string): SyntaxLocation | undefined {
  if (!(error instanceof SyntaxError)) return undefined;
  const fromStack = locationHeader(error.stack ?? '');
  if (fromStack) return fromStack;
  if (!/\.(c|m)?js$/.test(file)) return undefined;
  const check = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8', timeout: CHECK_TIMEOUT_MS });
  return check.status !== 0 && typeof check.stderr === 'string' ? locationHeader(check.stderr) : undefined;
}
