/**
 * Questions about a file a path names, asked without opening more than needed:
 * whether two paths name one file, and a few bytes of it.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';

/** Whether `a` and `b` name one file: the same path once resolved, or (both existing) one file through links. */
export function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  try {
    const [x, y] = [statSync(a), statSync(b)];
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

/** Up to `n` bytes of the regular file at `path` from `position`; undefined when it cannot be read (missing, a folder). */
export function readBytes(path: string, position: number, n: number): Buffer | undefined {
  let fd: number | undefined;
  try {
    if (!statSync(path).isFile()) return undefined;
    fd = openSync(path, 'r');
    const buffer = Buffer.alloc(n);
    return buffer.subarray(0, readSync(fd, buffer, 0, n, position));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
