/**
 * The shared wire fixtures (recorded provider responses) are not in this
 * repository: they sit in the shared folder beside it (../shared/fixtures/wire,
 * or LOOPGATE_WIRE_FIXTURES), which CI has and a clone alone does not. Tests that
 * read them are skipped, with the reason, where the folder is missing — and run
 * (so fail) under CI.
 */
import { existsSync } from 'node:fs';
import { describe, it } from 'vitest';
import { WIRE_FIXTURES_DIR } from '../../providers/recorded-fixtures.expected.ts';
import { inCi } from '../../src/stores/postgres-store-testing.ts';

export const WIRE_FIXTURES_PROBLEM: string | undefined = existsSync(WIRE_FIXTURES_DIR)
  ? undefined
  : `no shared wire fixtures at ${WIRE_FIXTURES_DIR} (the shared folder beside the repository; or set LOOPGATE_WIRE_FIXTURES)`;

const runThem = WIRE_FIXTURES_PROBLEM === undefined || inCi();

/** `describe` for tests that read the fixtures: the reason in the title when skipped. */
export function describeWithWireFixtures(name: string, body: () => void): void {
  if (runThem) describe(name, body);
  else describe.skip(`${name} (skipped: ${WIRE_FIXTURES_PROBLEM}; in CI this fails)`, body);
}

/** `it` for a single test that reads the fixtures: the reason in the title when skipped. */
export function fixtureIt(name: string, body: () => unknown): void {
  if (runThem) it(name, body);
  else it.skip(`${name} (skipped: ${WIRE_FIXTURES_PROBLEM}; in CI this fails)`, body);
}
