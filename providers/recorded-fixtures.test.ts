/**
 * Every shared wire fixture replayed through its provider's adapter over the
 * wire fake (the real SDK parses the recorded bytes), normalizing to the
 * expected result written from reading the file; and the copy the package ships
 * equal to the shared folder, byte for byte.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeWithSharedFixtures } from '../test/support/wire-fixtures.ts';
import { decodeRecorded } from './decode-recorded.ts';
import { WIRE_PROVIDERS } from './names.ts';
import { FIXTURE_EXPECTATIONS, SHARED_WIRE_FIXTURES_DIR, WIRE_FIXTURES_DIR, expectedSummary } from './recorded-fixtures.expected.ts';
import { summarizeResult } from './shared/summary.ts';

describeWithSharedFixtures('the shipped copy of the shared wire fixtures', () => {
  const list = (dir: string) => ['README.md', ...WIRE_PROVIDERS.flatMap((p) => readdirSync(join(dir, p)).map((f) => `${p}/${f}`))].sort();
  it('holds the same files, byte for byte', () => {
    const shared = list(SHARED_WIRE_FIXTURES_DIR);
    expect(list(WIRE_FIXTURES_DIR)).toEqual(shared);
    for (const f of shared) expect(readFileSync(join(WIRE_FIXTURES_DIR, f)).equals(readFileSync(join(SHARED_WIRE_FIXTURES_DIR, f))), f).toBe(true);
  });
});

describe('shared wire fixtures', () => {
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
