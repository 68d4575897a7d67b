/**
 * The Chromium the browser tests drive (through playwright-core, which downloads
 * nothing), first found of:
 *
 * 1. `LOOPGATE_CHROMIUM`, a path to a Chromium you choose;
 * 2. `/usr/bin/chromium`, Debian's (`apt-get install -y chromium`; .ci/run installs it);
 * 3. the headless Chromium shipped inside the `@sparticuz/chromium` devDependency
 *    (the binary is in the npm package itself; unpacked to the temp folder on
 *    first use). It needs a few system libraries (NSS, expat) that most Linux
 *    machines have.
 *
 * A candidate counts only if it starts (`--version`). When none does, the tests
 * are skipped with the reason on a developer's machine and FAIL under CI: a
 * report nobody has seen render is not tested.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, it } from 'vitest';
import { inCi } from '../../src/stores/postgres-store-testing.ts';

export const CHROMIUM_ENV = 'LOOPGATE_CHROMIUM';
const DEBIAN_CHROMIUM = '/usr/bin/chromium';

export type ChromiumFound = { readonly path: string; readonly version: string } | { readonly problem: string };

function versionOf(path: string): Promise<{ version: string } | { problem: string }> {
  return new Promise((done) => {
    execFile(path, ['--version'], { timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) done({ problem: `${path} does not start: ${(stderr.trim() || error.message).split('\n')[0]}` });
      else done({ version: stdout.trim() });
    });
  });
}

async function candidate(): Promise<{ path: string } | { problem: string }> {
  const chosen = process.env[CHROMIUM_ENV];
  if (chosen !== undefined && chosen !== '') return existsSync(chosen) ? { path: chosen } : { problem: `${CHROMIUM_ENV}=${chosen} does not exist` };
  if (existsSync(DEBIAN_CHROMIUM)) return { path: DEBIAN_CHROMIUM };
  try {
    const packaged = (await import('@sparticuz/chromium')).default;
    return { path: await packaged.executablePath() };
  } catch (error) {
    return { problem: `no ${DEBIAN_CHROMIUM} and the @sparticuz/chromium devDependency gave none (${(error as Error).message.split('\n')[0]})` };
  }
}

export async function findChromium(): Promise<ChromiumFound> {
  const found = await candidate();
  if ('problem' in found) return found;
  const started = await versionOf(found.path);
  return 'problem' in started ? started : { path: found.path, version: started.version };
}

/**
 * `describe` for tests that need a browser: runs them with the Chromium found;
 * without one, one failing test in CI, a stated skip elsewhere.
 */
export function describeWithChromium(name: string, found: ChromiumFound, body: (chromium: string) => void): void {
  if (!('problem' in found)) {
    describe(`${name} (${found.version})`, () => body(found.path));
  } else if (inCi()) {
    describe(name, () => {
      it('has a Chromium to test in', () => {
        throw new Error(
          `no usable Chromium: ${found.problem}. In CI this fails rather than skips (.ci/run installs Debian's chromium; or set ${CHROMIUM_ENV})`,
        );
      });
    });
  } else {
    describe.skip(`${name} (skipped: no usable Chromium: ${found.problem}; in CI this fails)`, () => body(''));
  }
}
