/**
 * `describeModelClientContract(name, harness)`: the shared contract suite as
 * vitest tests, one per case. Cases the harness cannot produce are visible
 * skips whose title carries the reason; the suite fails when every case was
 * skipped, as `loopgate contract` exits 1 when nothing was checked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContractCase } from './cases.ts';
import { CONTRACT_CASES } from './cases.ts';
import type { ContractHarness } from './harness.ts';
import { isUnsupported, skippedUpFront } from './harness.ts';
import { caseTimeLimitMs, runContractCase } from './run-case.ts';

export interface DescribeContractOptions {
  /** Only these case ids (default: all). */
  readonly only?: readonly string[];
  readonly cases?: readonly ContractCase[];
}

export function describeModelClientContract(name: string, harness: ContractHarness, options: DescribeContractOptions = {}): void {
  const cases = (options.cases ?? CONTRACT_CASES).filter((c) => !options.only || options.only.includes(c.id));
  describe(`ModelClient contract: ${name}`, () => {
    let checked = 0;
    let skipped = 0;
    beforeAll(async () => {
      await harness.start?.();
    });
    afterAll(async () => {
      await harness.stop?.();
    });
    for (const testCase of cases) {
      const title = `${testCase.id}: ${testCase.title}`;
      const reason = skippedUpFront(harness, testCase);
      if (reason) {
        // Skipped on purpose: the provider cannot produce this case; the reason is in the title.
        it.skip(`${title} — unsupported: ${reason}`, () => {});
        skipped++; // counted as the suite is collected: up front
        continue;
      }
      it(
        title,
        async (ctx) => {
          const client = await harness.clientFor({
            caseId: testCase.id,
            behaviour: testCase.behaviour,
            ...(testCase.adapter ? { adapter: testCase.adapter } : {}),
          });
          if (isUnsupported(client)) {
            ctx.skip(`unsupported: ${client.unsupported}`);
          } else {
            checked++;
            await runContractCase(testCase, client);
          }
          // Longer than the case's own guard, whatever the project's test timeout: the suite says why a call hung.
        },
        caseTimeLimitMs(testCase),
      );
    }
    // A harness that skips every case passes nothing off as checked (outside probe 58, MED-1: 163 skips, exit 0).
    // Every case skipped up front is known now: a test says so (vitest runs no hook of a suite whose tests all skip).
    // Cases skipped by the client are known only once they ran, in whatever order (--sequence.shuffle, concurrent):
    // the suite's afterAll says so.
    if (cases.length > 0)
      it('(loopgate) something was checked', () => {
        if (skipped === cases.length) expect.fail(`nothing was checked: all ${skipped} case(s) were skipped`);
      });
    afterAll(() => {
      if (cases.length > 0 && skipped < cases.length && checked === 0)
        throw new Error(`ModelClient contract: ${name}: nothing was checked: all ${cases.length} case(s) were skipped`);
    });
  });
}
