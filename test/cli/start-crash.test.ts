/**
 * A throw while the command sets itself up — after it guards the process against the code under test (guard-process.ts),
 * before the command runs — must end it non-zero, saying why. The guard keeps every uncaught exception as a
 * "stray" of the code under test, so such a throw was kept and never told, and with nothing left to run the process
 * ended 0 with no output: `loopgate run` passing a CI job without running a case. Found by mutation seed 36's error
 * mutant `secret-rules.ts:66:3` (a default rule made `{}`: the output redactor's `createRedactor()` threw there).
 * Here a preload makes the setup throw (the signal handlers' `process.once`), the redactor untouched.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'loopgate-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `loopgate <arg>` with `preload` (a module's source) imported first. */
function withPreload(name: string, preload: string, arg: string, env: Record<string, string> = {}) {
  const file = join(dir, name);
  writeFileSync(file, preload);
  return spawnSync(process.execPath, ['--import', pathToFileURL(file).href, join(ROOT, 'bin', 'loopgate.js'), arg], {
    encoding: 'utf8',
    env: { ...process.env, LOOPGATE_RUN_SOURCES: '1', ...env },
    timeout: 60_000,
  });
}

/** A preload whose `process.once('SIGINT', …)` (the command's signal setup) throws `message`, a JavaScript expression. */
const throwOnSignalSetup = (message: string) =>
  `const once = process.once;\nprocess.once = function (event, ...rest) {\n  if (event === 'SIGINT') throw new Error(${message});\n  return once.call(this, event, ...rest);\n};\n`;

describe('loopgate: a throw while the command sets itself up', () => {
  it('ends it 2, naming the error, not 0 in silence', () => {
    const got = withPreload('throw-on-signal-setup.mjs', throwOnSignalSetup("'planted: the setup broke'"), '--version');
    expect(got.stdout).toBe('');
    expect(got.stderr).toContain('planted: the setup broke');
    expect(got.status).toBe(2);
  });

  it('redacts what it names: a secret of the environment in the error is not printed', () => {
    const key = 'sk-start-crash-0123456789abcdefXYZ';
    const preload = throwOnSignalSetup("'planted: the setup broke holding ' + process.env.OPENAI_API_KEY");
    const got = withPreload('throw-a-secret-on-signal-setup.mjs', preload, '--version', { OPENAI_API_KEY: key });
    expect(got.stderr).toContain('planted: the setup broke holding [REDACTED]');
    expect(got.stderr).not.toContain(key.slice(0, 12));
    expect(got.status).toBe(2);
  });
});

describe('loopgate: the command itself breaking (main rejects)', () => {
  it('ends it 2 as an internal error with its stack, not as a promise that never settles', () => {
    // `main` writes its refusal of an unknown flag to stderr: that first write made to throw, `main` itself rejects.
    const preload =
      "const write = process.stderr.write;\nlet thrown = false;\nprocess.stderr.write = function (...rest) {\n  if (!thrown) { thrown = true; throw new Error('planted: main broke'); }\n  return write.apply(this, rest);\n};\n";
    const got = withPreload('first-error-line-throws.mjs', preload, '--bogus');
    expect(got.stderr).toContain('loopgate: internal error: Error: planted: main broke');
    expect(got.stderr).not.toContain('never settles');
    expect(got.status).toBe(2);
  });
});
