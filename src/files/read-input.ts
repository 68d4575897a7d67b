/**
 * Reading a file a user named as input: regular files only (a FIFO, device or
 * socket is refused before it is opened, so nothing blocks or reads forever),
 * at most a stated number of bytes, and strictly UTF-8 (an invalid byte is an
 * error naming its offset). Every problem is an `InputFileError` naming the path.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, statSync } from 'node:fs';
import { errnoText, InputFileError } from './errors.ts';
import { fileKind } from './file-kind.ts';
import { formatBytes } from './limits.ts';
import { decodeUtf8 } from './utf8.ts';

export interface ReadInputOptions {
  /** What the file is, for messages: "scenario file", "baseline", … */
  readonly what: string;
  readonly maxBytes: number;
  /** Keep a leading byte-order mark in the text (for a file that is rewritten, so it keeps it). */
  readonly keepBom?: boolean;
}

// Opening never waits for a writer (a FIFO swapped in after the check) or takes a terminal.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** The file's bytes, checked as described above. */
export function readInputBytes(path: string, options: ReadInputOptions): Buffer {
  const { what, maxBytes } = options;
  let stat;
  try {
    stat = statSync(path);
  } catch (error) {
    throw new InputFileError(path, `cannot read the ${what}: ${danglingLink(path, error) ?? errnoText(error)}`, { cause: error });
  }
  const notRegular = (kind: string) => new InputFileError(path, `is ${kind}, not a regular file; the ${what} must be a regular file`);
  if (!stat.isFile()) throw notRegular(fileKind(stat));
  const tooLarge = (size: string) => new InputFileError(path, `is ${size}; the ${what} may be at most ${formatBytes(maxBytes)} (${maxBytes} bytes)`);
  if (stat.size > maxBytes) throw tooLarge(`${stat.size} bytes`);

  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    throw new InputFileError(path, `cannot read the ${what}: ${errnoText(error)}`, { cause: error });
  }
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile()) throw notRegular(fileKind(opened));
    // Read to the end, never past the limit (files such as /proc's report size 0 and still have content).
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, maxBytes + 1 - total));
      let n: number;
      try {
        n = readSync(fd, chunk, 0, chunk.length, null);
      } catch (error) {
        throw new InputFileError(path, `cannot read the ${what}: ${errnoText(error)}`, { cause: error });
      }
      if (n === 0) break;
      chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
      total += n;
      if (total > maxBytes) throw tooLarge(`more than ${formatBytes(maxBytes)}`);
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** The file's text (UTF-8, a leading byte-order mark dropped unless `keepBom`), checked as described above. */
export function readInputFile(path: string, options: ReadInputOptions): string {
  const bytes = readInputBytes(path, options);
  const decoded = decodeUtf8(bytes);
  if ('invalidAt' in decoded) {
    throw new InputFileError(path, `is not valid UTF-8: invalid byte sequence at byte offset ${decoded.invalidAt}`);
  }
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return options.keepBom && bom ? `\ufeff${decoded.text}` : decoded.text;
}

/** For a path that is a symbolic link to nothing: what it points at ("no such file" alone reads as if the link were missing). */
function danglingLink(path: string, error: unknown): string | undefined {
  if ((error as NodeJS.ErrnoException)?.code !== 'ENOENT') return undefined;
  try {
    if (!lstatSync(path).isSymbolicLink()) return undefined;
    return `a symbolic link to ${readlinkSync(path)}, which does not exist (ENOENT)`;
  } catch {
    return undefined;
  }
}
