import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputFileError } from './errors.ts';
import { readInputFile } from './read-input.ts';
import { firstInvalidUtf8 } from './utf8.ts';

const dir = mkdtempSync(join(tmpdir(), 'loopgate-read-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const read = (path: string, maxBytes = 1024) => readInputFile(path, { what: 'scenario file', maxBytes });
const failure = (path: string, maxBytes?: number): string => {
  try {
    read(path, maxBytes);
  } catch (error) {
    expect(error).toBeInstanceOf(InputFileError);
    return (error as Error).message;
  }
  throw new Error(`expected ${path} to be refused`);
};

describe('readInputFile', () => {
  it('reads a regular UTF-8 file, dropping a byte-order mark', () => {
    const path = join(dir, 'ok.yaml');
    writeFileSync(path, '\ufeffname: café\n');
    expect(read(path)).toBe('name: café\n');
  });

  it('refuses a FIFO without opening it (no hang), naming it', () => {
    const path = join(dir, 'pipe.yaml');
    execFileSync('mkfifo', [path]);
    expect(failure(path)).toBe(`${path}: is a FIFO (named pipe), not a regular file; the scenario file must be a regular file`);
  });

  it('refuses a symlink to /dev/zero and a directory', () => {
    const path = join(dir, 'zero.yaml');
    symlinkSync('/dev/zero', path);
    expect(failure(path)).toMatch(/zero\.yaml: is a character device, not a regular file/);
    expect(failure(dir)).toMatch(/: is a directory, not a regular file/);
  });

  it('refuses a socket', async () => {
    const path = join(dir, 'sock.yaml');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      expect(failure(path)).toMatch(/sock\.yaml: is a socket, not a regular file/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses a file over the limit, saying the limit', () => {
    const path = join(dir, 'big.yaml');
    writeFileSync(path, 'x'.repeat(2000));
    expect(failure(path, 1024)).toBe(`${path}: is 2000 bytes; the scenario file may be at most 1 KiB (1024 bytes)`);
  });

  it('names the byte offset of invalid UTF-8 instead of replacing it', () => {
    const path = join(dir, 'latin1.yaml');
    writeFileSync(path, Buffer.concat([Buffer.from('name: caf'), Buffer.from([0xe9]), Buffer.from('\n')]));
    expect(failure(path)).toBe(`${path}: is not valid UTF-8: invalid byte sequence at byte offset 9`);
  });

  it('names a missing file', () => {
    expect(failure(join(dir, 'nope.yaml'))).toMatch(/nope\.yaml: cannot read the scenario file: no such file or directory \(ENOENT\)/);
  });

  it('names a symbolic link whose target is missing as a dangling link, with its target', () => {
    const link = join(dir, 'dangling.yaml');
    symlinkSync(join(dir, 'gone.yaml'), link);
    expect(failure(link)).toBe(`${link}: cannot read the scenario file: a symbolic link to ${join(dir, 'gone.yaml')}, which does not exist (ENOENT)`);
  });
});

describe('firstInvalidUtf8', () => {
  it.each([
    ['valid', [0x61, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80], -1],
    ['a lone continuation byte', [0x61, 0x80], 1],
    ['an overlong form', [0x61, 0x62, 0xc0, 0xaf], 2],
    ['a surrogate', [0xed, 0xa0, 0x80], 0],
    ['past U+10FFFF', [0xf4, 0x90, 0x80, 0x80], 0],
    ['a truncated sequence', [0x61, 0xe2, 0x82], 1],
  ])('%s', (_name, bytes, at) => {
    expect(firstInvalidUtf8(Uint8Array.from(bytes))).toBe(at);
    // The same verdict as the platform's strict decoder.
    let valid = true;
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
    } catch {
      valid = false;
    }
    expect(valid).toBe(at === -1);
  });
});
