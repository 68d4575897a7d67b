/** Errors about the files a user names: what the path is, and what is wrong with it. */
import { statSync } from 'node:fs';
import { InputError } from '../kernel/index.ts';

/** A file given as input cannot be used (not a regular file, too large, not UTF-8, unreadable). */
export class InputFileError extends InputError {
  readonly path: string;
  constructor(path: string, problem: string, options?: ErrorOptions) {
    super(`${path}: ${problem}`, options);
    this.name = 'InputFileError';
    this.path = path;
  }
}

/** A place given for output (a report directory, a baseline file) cannot be written. */
export class OutputPathError extends InputError {
  readonly path: string;
  constructor(path: string, problem: string, options?: ErrorOptions) {
    super(`${path}: ${problem}`, options);
    this.name = 'OutputPathError';
    this.path = path;
  }
}

/** `ENOENT`, `EACCES`… or the message, for the end of a one-line error. */
export function errnoText(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  const meaning: Record<string, string> = {
    ENOENT: 'no such file or directory',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EROFS: 'read-only file system',
    ENOTDIR: 'a part of the path is not a directory',
    EISDIR: 'is a directory',
    ENOSPC: 'no space left on the device',
    ELOOP: 'a symbolic link loop: too many levels of symbolic links',
    ENAMETOOLONG: 'file name too long',
  };
  if (typeof e?.code === 'string') return meaning[e.code] ? `${meaning[e.code]} (${e.code})` : e.code;
  return e instanceof Error ? e.message : String(error);
}

/**
 * Why a path given as input cannot be opened: `missing` when nothing is there,
 * else what is wrong (a symbolic link loop, no permission, a part that is no
 * directory), or nothing when it can. `existsSync` is false for all of these
 * alike, and "no such file" for a link loop sends the user looking for a file.
 */
export function unreachable(path: string): 'missing' | string | undefined {
  try {
    statSync(path);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : errnoText(error);
  }
}
