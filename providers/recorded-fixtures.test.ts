/**
 * Every shared wire fixture replayed through its provider's adapter over the
 * wire fake (the real SDK parses the recorded bytes), normalizing to the
 * expected result written from reading the file.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeWithWireFixtures } from '../test/support/wire-fixtures.ts';
import { decodeRecorded } from './decode-recorded.ts';
import { WIRE_PROVIDERS } from './names.ts';
import { FIXTURE_EXPECTATIONS, WIRE_FIXTURES_DIR, expectedSummary } from './recorded-fixtures.expected.ts';
import { summarizeResult } from './shared/summary.ts';

describeWithWireFixtures('shared wire fixtures', () => {
  it('has an expectation for every fixture file, and no expectation without a file', () => {
    const files = WIRE_PROVIDERS.flatMap((provider) =>
      readdirSync(join(WIRE_FIXTURES_DIR, provider))
        .filter((f) => f.endsWith('.json') || f.endsWith('.chunks.txt'))
        .map((f) => `${provider}/${f}`),
    );
    const covered = FIXTURE_EXPECTATIONS.map((e) => `${e.provider}/${e.file}`);
    expect([...covered].sort()).toEqual([...files].sort());
  });

  for (const entry of FIXTURE_EXPECTATIONS) {
    it(`${entry.provider}/${entry.file} → ${entry.expected.type}${entry.expected.kind ? `{${entry.expected.kind}}` : ''}`, async () => {
      const text = readFileSync(join(WIRE_FIXTURES_DIR, entry.provider, entry.file), 'utf8');
      const outcome = await decodeRecorded(entry.provider, entry.file, text);
      expect(outcome.status).toBe(entry.status ?? 200);
      expect(summarizeResult(outcome.result)).toEqual(expectedSummary(entry, text));
    });
  }
});
