/**
 * The case generator reaches a tool executor built without the redactor (outside
 * probe 19, P5b): in some of the cases that list the planted secrets, every tool
 * with a sound executor is answered by `skips-redaction`, and the probe's first
 * attempt returns both secrets in plain text. The pipeline's redaction is then
 * out of the way, and only the log's own keeps the secrets out of the store.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runScenario } from '../../harness/second-host.ts';
import { fuzzCaseArb } from './scenario.ts';
import { FUZZ_PASSPHRASE, FUZZ_PIN, FUZZ_SECRET, FUZZ_SIGNING_KEY } from './secret.ts';
import { PROBE_TOOL, SECRETS_UNREDACTED_OUTPUT } from './tools.ts';

const cases = fc.sample(fuzzCaseArb(), { numRuns: 1_000, seed: 19 });
const leaky = cases.filter((c) => c.scenario.tools?.some((t) => t.executor === 'skips-redaction'));

describe('fuzzCaseArb reaches an executor that skips redaction', () => {
  it('in a few percent of cases, each listing the secrets, its probe returning them', () => {
    expect(leaky.length).toBeGreaterThan(20);
    expect(leaky.length).toBeLessThan(120);
    for (const c of leaky) {
      expect(c.scenario.secrets).toEqual([FUZZ_SECRET, FUZZ_PASSPHRASE, FUZZ_SIGNING_KEY, FUZZ_PIN]);
      const probe = c.scenario.tools!.find((t) => t.name === PROBE_TOOL.name)!;
      if (probe.executor === 'skips-redaction') expect(probe.behaviour?.[0]).toEqual({ return: SECRETS_UNREDACTED_OUTPUT });
    }
  });

  it('where the probe ran, the store holds its output redacted', async () => {
    let ran = 0;
    for (const c of leaky.slice(0, 30)) {
      const run = await runScenario(c.scenario, { seed: 1 });
      const results = run.log.events.filter((e) => e.type === 'tool.result' && JSON.stringify(e).includes('diagnostics: key in use'));
      ran += results.length;
      for (const event of results) {
        expect(JSON.stringify(event)).not.toContain(FUZZ_SECRET);
        expect(JSON.stringify(event)).not.toContain(FUZZ_PASSPHRASE);
        expect(JSON.stringify(event)).not.toContain(FUZZ_PIN);
      }
    }
    expect(ran).toBeGreaterThan(0);
  });
});
