/**
 * The shared wire fixtures (recorded provider responses) live in the shared
 * folder beside this repository (../shared/fixtures/wire), which CI has and a
 * clone alone does not; the package ships a verbatim copy
 * (providers/fixtures/wire). The test that compares the copy with the shared
 * folder is skipped, with the reason, where the folder is missing — and runs (so
 * fails) under CI.
 */
import { existsSync } from 'node:fs';
import { describe } from 'vitest';
import { SHARED_WIRE_FIXTURES_DIR } from '../../providers/recorded-fixtures.expected.ts';
import { inCi } from '../../src/stores/postgres-store-testing.ts';

export const SHARED_FIXTURES_PROBLEM: string | undefined = existsSync(SHARED_WIRE_FIXTURES_DIR)
  ? undefined
  : `no shared wire fixtures at ${SHARED_WIRE_FIXTURES_DIR} (the shared folder beside the repository)`;

const runThem = SHARED_FIXTURES_PROBLEM === undefined || inCi();

/** `describe` for tests that read the shared folder: the reason in the title when skipped. */
export function describeWithSharedFixtures(name: string, body: () => void): void {
  if (runThem) describe(name, body);
  else describe.skip(`${name} (skipped: ${SHARED_FIXTURES_PROBLEM}; in CI this fails)`, body);
}
