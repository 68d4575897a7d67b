/**
 * The fuzzer is tested against deliberately broken variants (broken-variants.ts):
 * for each, a fuzz run of at most 10,000 cases must find the bug with the right
 * invariant, shrink it to a small scenario, and the written file must reproduce
 * it through the same seam (run as `loopgate run` judges a case, plus the
 * invariant) — while the real world (what `loopgate run FILE` runs) passes it,
 * showing the bug is the variant's and not the loop's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeCounterexample } from '../../src/fuzz/counterexample.ts';
import { reproduce } from '../../src/fuzz/reproduce.ts';
import { runFuzz } from '../../src/fuzz/run-fuzz.ts';
import { bundledFuzzOptions } from '../support/bundled.ts';
import type { Scenario } from '../../src/harness/scenario/schema.ts';
import { BROKEN_VARIANTS } from './broken-variants.ts';

const dir = mkdtempSync(join(tmpdir(), 'loopgate-broken-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Small: the few entries a person can read at a glance, and none of the optional worlds. */
function small(s: Scenario, needs: readonly string[] = []): string[] {
  const problems: string[] = [];
  // A crash and its reopen are the store-crash world fuzz draws (a process dying), not messages to read.
  const messages = s.inbox.filter((e) => !e.crash && !e.reopen);
  if (messages.length > 3) problems.push(`${messages.length} inbox entries`);
  if (s.inbox.length - messages.length > 2) problems.push(`${s.inbox.length - messages.length} crashes and reopens`);
  if (s.provider.script.length > 2) problems.push(`${s.provider.script.length} provider steps`);
  if (s.tools.length > 1) problems.push(`${s.tools.length} tool overrides`);
  for (const key of ['compaction', 'checkpoints', 'claim', 'store', 'approver', 'visibility', 'secrets'] as const)
    if (s[key] !== undefined && !needs.includes(key)) problems.push(`a ${key}`);
  if (s.provider.fallback !== undefined) problems.push('a fallback script');
  return problems;
}

describe('the fuzzer finds broken variants and shrinks them to a scenario file', () => {
  for (const variant of BROKEN_VARIANTS) {
    it(`${variant.bug}: found by ${variant.invariant} within 10,000 runs`, async () => {
      const bundled = await bundledFuzzOptions();
      const host = { ...bundled.host, ...variant.host };
      const result = await runFuzz({ runs: 10_000, seed: 20_260_101, cases: bundled.cases, host, maxShrinkMs: 30_000 });
      const failure = result.failure;
      expect(failure, `${variant.name}: no violation in ${result.runs} runs`).toBeDefined();
      expect([variant.invariant, ...(variant.also ?? [])], failure!.message).toContain(failure!.invariant.id);
      expect(failure!.foundAtRun).toBeLessThanOrEqual(10_000);
      expect(small(failure!.scenario, variant.needs), JSON.stringify(failure!.scenario)).toEqual([]);

      const file = await writeCounterexample(dir, failure!.scenario, {
        invariant: failure!.invariant.id,
        title: failure!.invariant.title,
        message: failure!.message,
        seed: result.seed,
        path: failure!.path,
        runs: failure!.foundAtRun,
        shrinks: failure!.shrinks,
        crashAt: failure!.crashAt,
      });
      // Through the same seam the file fails as `loopgate run` judges a case (expectations and every-scenario checks)...
      const withBug = await reproduce(file, { host, invariants: [failure!.invariant] });
      expect(withBug.length, `${variant.name}: the counterexample passes through the broken seam`).toBeGreaterThan(0);
      // ...and in the real world it passes: the bug is the variant's.
      expect(await reproduce(file, { host: bundled.host })).toEqual([]);
    });
  }
});
