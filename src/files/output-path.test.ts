import { chmodSync, existsSync, linkSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OutputPathError } from './errors.ts';
import { checkOutputPath, ensureDirectory, writeFileAtomic } from './output-path.ts';

const dir = mkdtempSync(join(tmpdir(), 'loopgate-output-path-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const refusal = (fn: () => void): string => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(OutputPathError);
    return (error as Error).message;
  }
  throw new Error('expected an OutputPathError');
};

describe('output paths', () => {
  it('creates missing directories level by level', () => {
    const target = join(dir, 'a', 'b', 'c');
    ensureDirectory(target, 'report directory');
    expect(existsSync(target)).toBe(true);
    ensureDirectory(target, 'report directory'); // already there: fine
  });

  it('refuses a file where a directory must be, and a path under a file, writing nothing', () => {
    const file = join(dir, 'file.txt');
    writeFileSync(file, 'x');
    expect(refusal(() => ensureDirectory(file, 'report directory'))).toBe(`${file}: is a regular file; the report directory must be a directory`);
    expect(refusal(() => checkOutputPath(join(file, 'b.json'), 'baseline', 'file'))).toBe(
      `${join(file, 'b.json')}: cannot be the baseline: ${file} is a regular file, not a directory`,
    );
    expect(refusal(() => ensureDirectory(join(file, 'sub', 'deeper'), 'report directory'))).toMatch(/is a regular file, not a directory/);
    expect(readdirSync(dir).sort()).toEqual(['a', 'file.txt']);
  });

  it('names a dangling symbolic link as one, for a file and for a directory, creating nothing', () => {
    const links = mkdtempSync(join(dir, 'links-'));
    const link = join(links, 'out');
    symlinkSync(join(links, 'gone'), link);
    const said = `${link}: is a symbolic link to ${join(links, 'gone')}, which does not exist; name the directory itself, or create it`;
    expect(refusal(() => ensureDirectory(link, 'report directory'))).toBe(said.replace('the directory', 'the report directory'));
    expect(refusal(() => checkOutputPath(join(link, 'b.json'), 'baseline', 'file'))).toBe(
      `${join(link, 'b.json')}: is under a symbolic link to ${join(links, 'gone')}, which does not exist (${link}); name the directory itself, or create it`,
    );
    expect(readdirSync(links)).toEqual(['out']);
  });

  it('gives up on /proc at once instead of spinning like a recursive mkdir', () => {
    const started = performance.now();
    expect(refusal(() => ensureDirectory('/proc/loopgate-x/y', 'report directory'))).toMatch(/^\/proc\/loopgate-x\/y: cannot create the report directory: /);
    expect(performance.now() - started).toBeLessThan(20_000); // a hang bound
  });

  // Root may write anywhere; the /proc case above covers the refusal path there.
  it.skipIf(process.getuid?.() === 0)('refuses a directory it may not write to (skipped as root, who may write anywhere)', () => {
    const locked = join(dir, 'locked');
    ensureDirectory(locked, 'report directory');
    chmodSync(locked, 0o555);
    expect(refusal(() => ensureDirectory(join(locked, 'out'), 'report directory'))).toMatch(/permission denied/);
  });

  it('writes a file whole through a temporary file, leaving no temporary file behind', () => {
    const path = join(dir, 'whole.json');
    writeFileAtomic(path, '{"a":1}\n', 'baseline');
    expect(readdirSync(dir).filter((f) => f.startsWith('whole'))).toEqual(['whole.json']);
    expect(refusal(() => writeFileAtomic(join(dir, 'missing', 'x.json'), '{}', 'baseline'))).toMatch(/cannot write the baseline: no such file or directory/);
  });

  it('keeps what a file is: a symbolic link stays one and its target is written, the mode is kept, hard links stay linked (probe 29, F11)', () => {
    const shared = join(dir, 'shared');
    ensureDirectory(shared, 'scenario folder');
    const target = join(shared, 'linked.yaml');
    writeFileSync(target, 'old\n');
    const link = join(dir, 'link.yaml');
    symlinkSync(target, link);
    writeFileAtomic(link, 'new\n', 'scenario file');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('new\n');

    const readOnly = join(dir, 'ro.yaml');
    writeFileSync(readOnly, 'old\n');
    chmodSync(readOnly, 0o444);
    writeFileAtomic(readOnly, 'new\n', 'scenario file');
    expect(statSync(readOnly).mode & 0o777).toBe(0o444);
    expect(readFileSync(readOnly, 'utf8')).toBe('new\n');

    const first = join(dir, 'hard-src.yaml');
    const second = join(dir, 'hard.yaml');
    writeFileSync(first, 'old\n');
    linkSync(first, second);
    writeFileAtomic(second, 'new\n', 'scenario file');
    expect(readFileSync(first, 'utf8')).toBe('new\n');
    expect(statSync(first).ino).toBe(statSync(second).ino);
  });
});
