/**
 * Places a user names for output: checked before anything runs, created
 * without `mkdir -p` (Node's recursive mkdir spins forever under /proc), and
 * written whole or not at all. Every problem is an `OutputPathError` naming the
 * path as given.
 */
import {
  accessSync,
  chmodSync,
  constants,
  lstatSync,
  mkdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { errnoText, OutputPathError } from './errors.ts';
import { fileKind } from './file-kind.ts';

function statOrMissing(path: string, given: string, what: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new OutputPathError(given, `cannot use it for the ${what}: ${errnoText(error)}`, { cause: error });
  }
  // Missing — unless a symbolic link is there, pointing nowhere: creating the path would fail on it (EEXIST).
  const target = danglingTarget(path);
  if (target === undefined) return undefined;
  throw new OutputPathError(
    given,
    path === resolve(given)
      ? `is a symbolic link to ${target}, which does not exist; name the ${what} itself, or create it`
      : `is under a symbolic link to ${target}, which does not exist (${path}); name the directory itself, or create it`,
  );
}

/** Where a symbolic link at `path` points, when it is one (resolved from its folder); undefined for no link. */
function danglingTarget(path: string): string | undefined {
  try {
    if (!lstatSync(path).isSymbolicLink()) return undefined;
    return resolve(dirname(path), readlinkSync(path));
  } catch {
    return undefined;
  }
}

/** The path and its ancestors, root first. */
function lineage(path: string): string[] {
  const out: string[] = [];
  for (let p = resolve(path); ; p = dirname(p)) {
    out.unshift(p);
    if (dirname(p) === p) return out;
  }
}

/**
 * Checks, without writing anything, that `path` can become the output named:
 * it is (or can be made) a `kind`, every existing ancestor is a directory, and
 * the place is writable. What only creating can tell (a pseudo file system) is
 * left to `ensureDirectory` and the write itself.
 */
export function checkOutputPath(given: string, what: string, kind: 'file' | 'directory'): void {
  if (given.trim() === '') throw new OutputPathError(JSON.stringify(given), `an empty path cannot be the ${what}`);
  const chain = lineage(given);
  for (let i = 0; i < chain.length; i++) {
    const p = chain[i]!;
    const stat = statOrMissing(p, given, what);
    const last = i === chain.length - 1;
    if (stat === undefined) {
      const parent = chain[i - 1]!;
      try {
        accessSync(parent, constants.W_OK);
      } catch (error) {
        throw new OutputPathError(given, `cannot create the ${what} in ${parent}: ${errnoText(error)}`, { cause: error });
      }
      return;
    }
    if (!last && !stat.isDirectory()) throw new OutputPathError(given, `cannot be the ${what}: ${p} is ${fileKind(stat)}, not a directory`);
    if (last) {
      const ok = kind === 'directory' ? stat.isDirectory() : stat.isFile();
      if (!ok) throw new OutputPathError(given, `is ${fileKind(stat)}; the ${what} must be ${kind === 'directory' ? 'a directory' : 'a regular file'}`);
      try {
        accessSync(p, constants.W_OK);
      } catch (error) {
        throw new OutputPathError(given, `the ${what} is not writable: ${errnoText(error)}`, { cause: error });
      }
    }
  }
}

/**
 * Creates the directory and its missing ancestors, one level at a time; an
 * existing non-directory on the way is an error. Then proves a file can be
 * created in it (and removes it): permissions do not tell for root, nor for a
 * pseudo file system such as /proc — and a run must not find out after it ran.
 */
export function ensureDirectory(given: string, what: string): void {
  checkOutputPath(given, what, 'directory');
  for (const p of lineage(given)) {
    const stat = statOrMissing(p, given, what);
    if (stat?.isDirectory()) continue;
    if (stat) throw new OutputPathError(given, `cannot be the ${what}: ${p} is ${fileKind(stat)}, not a directory`);
    try {
      mkdirSync(p);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST' && statOrMissing(p, given, what)?.isDirectory()) continue;
      throw new OutputPathError(given, `cannot create the ${what}: ${errnoText(error)}`, { cause: error });
    }
  }
  const probe = join(resolve(given), `.loopgate-write-check-${process.pid}.tmp`);
  try {
    writeFileSync(probe, '');
  } catch (error) {
    throw new OutputPathError(given, `cannot write files in the ${what}: ${errnoText(error)}`, { cause: error });
  }
  try {
    unlinkSync(probe);
  } catch {
    // Written but not removable: the write itself will tell.
  }
}

/**
 * Writes the file whole or not at all: a temporary file beside it, then a rename.
 * A file that exists keeps what it is (outside probe 29, F11): through a symbolic
 * link the link's target is written (the link stays a link, shared by whoever
 * shares it), the file's mode is kept (a read-only scenario stays read-only), and
 * a file with several hard links is written in place, so every name still names it.
 */
export function writeFileAtomic(given: string, text: string, what: string): void {
  let path = given;
  let existing: Stats | undefined;
  try {
    path = realpathSync(given);
    existing = statSync(path);
  } catch {
    // Not there yet (or a dangling link: written as the path says).
  }
  if (existing?.isFile() && existing.nlink > 1) {
    try {
      writeFileSync(path, text, 'utf8');
      return;
    } catch (error) {
      throw new OutputPathError(given, `cannot write the ${what}: ${errnoText(error)}`, { cause: error });
    }
  }
  const temp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, text, { encoding: 'utf8', ...(existing?.isFile() ? { mode: existing.mode & 0o7777 } : {}) });
    if (existing?.isFile()) chmodSync(temp, existing.mode & 0o7777);
    renameSync(temp, path);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // Never created, or already renamed: nothing to clean up.
    }
    throw new OutputPathError(given, `cannot write the ${what}: ${errnoText(error)}`, { cause: error });
  }
}
