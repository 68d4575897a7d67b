/**
 * Real recorded provider responses as cases of `loopgate run`: each file of
 * providers/fixtures/wire (a verbatim copy of the shared fixtures, bytes as the
 * APIs sent them) served by the wire fake and parsed by its adapter through the
 * real SDK, normalizing to the result written from reading the file. The
 * contract cases say what a response may be; these say what real ones were —
 * shapes no contract case writes (an error event with a null code, a failed
 * response with no output, a repeated message_start, a model router's chunks).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { FIXTURE_EXPECTATIONS, WIRE_FIXTURES_DIR, expectedSummary } from '../../providers/recorded-fixtures.expected.ts';
import type { Case } from './cases.ts';

export function recordedCases(): Case[] {
  return FIXTURE_EXPECTATIONS.map((entry) => ({
    id: `contract:recorded/${entry.provider}/${entry.file}`,
    kind: 'contract',
    title: `${entry.provider}: the recorded ${entry.file} normalizes to ${entry.expected.type}${entry.expected.kind ? `{${entry.expected.kind}}` : ''}`,
    file: `providers/fixtures/wire/${entry.provider}/${entry.file}`,
    async run() {
      const text = readFileSync(join(WIRE_FIXTURES_DIR, entry.provider, entry.file), 'utf8');
      // The SDKs and msw load only when a recorded case runs.
      const [{ decodeRecorded }, { summarizeResult }] = await Promise.all([
        import('../../providers/decode-recorded.ts'),
        import('../../providers/shared/summary.ts'),
      ]);
      const outcome = await decodeRecorded(entry.provider, entry.file, text);
      const got = { status: outcome.status ?? 200, result: summarizeResult(outcome.result) };
      const want = { status: entry.status ?? 200, result: expectedSummary(entry, text) };
      const passed = isDeepStrictEqual(got, want);
      return {
        status: passed ? 'passed' : 'failed',
        outcome: outcome.result.type,
        checks: [
          {
            name: 'recorded',
            passed,
            message: passed ? `normalized to ${outcome.result.type}` : `expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`,
          },
        ],
      };
    },
  }));
}
