/**
 * Runs the contract cases against a harness outside any test framework (for the
 * CLI) and reports each case as pass, fail or skip with its reason.
 */
import { describeError } from '../shared/call-runner.ts';
import type { ResultSummary } from '../shared/summary.ts';
import { summarizeResult } from '../shared/summary.ts';
import type { ContractCase } from './cases.ts';
import { CONTRACT_CASES } from './cases.ts';
import type { ContractHarness } from './harness.ts';
import { isUnsupported, skippedUpFront } from './harness.ts';
import { runContractCase } from './run-case.ts';
import { summaryDisagreements } from './summary-check.ts';

export type CaseStatus = 'pass' | 'fail' | 'skip';

export interface CaseReport {
  readonly id: string;
  readonly title: string;
  readonly status: CaseStatus;
  /** Why it was skipped, or what failed. */
  readonly reason?: string;
  readonly result?: ResultSummary;
}

export interface RunContractOptions {
  /** Only these case ids (default: all). */
  readonly only?: readonly string[];
  readonly cases?: readonly ContractCase[];
  /** Called as each case finishes, for progress output. */
  readonly onCase?: (report: CaseReport) => void;
}

export async function runContract(harness: ContractHarness, options: RunContractOptions = {}): Promise<CaseReport[]> {
  const cases = (options.cases ?? CONTRACT_CASES).filter((c) => !options.only || options.only.includes(c.id));
  const reports: CaseReport[] = [];
  const report = (r: CaseReport) => {
    reports.push(r);
    options.onCase?.(r);
  };
  await harness.start?.();
  try {
    for (const testCase of cases) {
      const { id, title } = testCase;
      const known = skippedUpFront(harness, testCase);
      if (known) {
        report({ id, title, status: 'skip', reason: known });
        continue;
      }
      try {
        const client = await harness.clientFor({ caseId: id, behaviour: testCase.behaviour, ...(testCase.adapter ? { adapter: testCase.adapter } : {}) });
        if (isUnsupported(client)) {
          report({ id, title, status: 'skip', reason: client.unsupported });
          continue;
        }
        const result = await runContractCase(testCase, client);
        const summary = summarizeResult(result);
        const wrong = summaryDisagreements(result, summary);
        if (wrong.length > 0)
          report({ id, title, status: 'fail', reason: `the printed summary disagrees with the ${result.type} result on: ${wrong.join(', ')}` });
        else report({ id, title, status: 'pass', result: summary });
      } catch (error) {
        report({ id, title, status: 'fail', reason: describeError(error) });
      }
    }
  } finally {
    await harness.stop?.();
  }
  return reports;
}
