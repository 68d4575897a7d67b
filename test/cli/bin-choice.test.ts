/**
 * What bin/loopgate.js runs: the build while it is as new as every source it was
 * built from (dist/build-stamp.json), else the sources — never a stale build.
 * Checked on a stand-in checkout: the real bin beside a tiny "sources" and
 * "build" that say which one ran.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'loopgate-bin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function checkout(): string {
  const root = mkdtempSync(join(dir, 'checkout-'));
  mkdirSync(join(root, 'bin'));
  cpSync(join(ROOT, 'bin', 'loopgate.js'), join(root, 'bin', 'loopgate.js'));
  writeFileSync(join(root, 'package.json'), '{"type":"module"}');
  mkdirSync(join(root, 'src', 'cli'), { recursive: true });
  writeFileSync(join(root, 'src', 'cli', 'main.ts'), "process.stdout.write('sources');\n");
  return root;
}

function build(root: string): void {
  mkdirSync(join(root, 'dist', 'src', 'cli'), { recursive: true });
  writeFileSync(join(root, 'dist', 'src', 'cli', 'main.js'), "process.stdout.write('build');\n");
  const sources = { 'src/cli/main.ts': statSync(join(root, 'src', 'cli', 'main.ts')).mtimeMs };
  writeFileSync(join(root, 'dist', 'build-stamp.json'), JSON.stringify({ sources }));
}

const ran = (root: string, env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [join(root, 'bin', 'loopgate.js')], { encoding: 'utf8', env: { ...process.env, LOOPGATE_RUN_SOURCES: '', ...env } }).stdout;

describe('bin/loopgate.js: the build when current, else the sources', () => {
  it('runs the sources when there is no build', () => {
    expect(ran(checkout())).toBe('sources');
  });

  it('runs the build while every source it lists is unchanged', () => {
    const root = checkout();
    build(root);
    expect(ran(root)).toBe('build');
  });

  it('runs the sources once a source changed after the build, or the stamp is missing', () => {
    const root = checkout();
    build(root);
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(root, 'src', 'cli', 'main.ts'), later, later);
    expect(ran(root)).toBe('sources');
    build(root);
    expect(ran(root)).toBe('build');
    rmSync(join(root, 'dist', 'build-stamp.json'));
    expect(ran(root)).toBe('sources');
  });

  it('LOOPGATE_RUN_SOURCES=1 runs the sources whatever the build (tools that hook the sources)', () => {
    const root = checkout();
    build(root);
    expect(ran(root, { LOOPGATE_RUN_SOURCES: '1' })).toBe('sources');
  });

  it('a package without sources runs its build', () => {
    const root = checkout();
    build(root);
    rmSync(join(root, 'src'), { recursive: true });
    expect(ran(root)).toBe('build');
  });
});
