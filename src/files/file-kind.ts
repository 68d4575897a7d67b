/** What a file system entry is, in words, for error messages. */
import type { Stats } from 'node:fs';

export function fileKind(stat: Stats): string {
  if (stat.isFile()) return 'a regular file';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  if (stat.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}
