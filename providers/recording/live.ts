/** Runs the live-capable contract cases against a provider's API (real, or a recording replayed by nock). */
import { createAdapter } from '../clients.ts';
import type { WireProvider } from '../names.ts';
import { describeError } from '../shared/call-runner.ts';
import { summarizeResult, type ResultSummary } from '../shared/summary.ts';
import type { CaseReport } from '../contract-suite/runner.ts';
import { LIVE_CASES, type LiveCase } from '../contract-suite/live-cases.ts';

export interface LiveTarget {
  readonly provider: WireProvider;
  readonly model: string;
  readonly apiKey: string;
  readonly baseURL: string;
  readonly fetch?: typeof globalThis.fetch;
}

export interface LiveCaseReport extends CaseReport {
  readonly result?: ResultSummary;
}

export async function runLiveCase(target: LiveTarget, testCase: LiveCase): Promise<LiveCaseReport> {
  const client = createAdapter(target.provider, {
    apiKey: testCase.apiKey ?? target.apiKey,
    baseURL: target.baseURL,
    model: target.model,
    ...(target.fetch ? { fetch: target.fetch } : {}),
  });
  const result = await client.call(testCase.request);
  const summary = summarizeResult(result);
  try {
    testCase.check(result);
    return { id: testCase.id, title: testCase.title, status: 'pass', result: summary };
  } catch (error) {
    return { id: testCase.id, title: testCase.title, status: 'fail', reason: describeError(error), result: summary };
  }
}

export async function runLiveCases(target: LiveTarget, onCase?: (report: LiveCaseReport) => void): Promise<LiveCaseReport[]> {
  const reports: LiveCaseReport[] = [];
  for (const testCase of LIVE_CASES) {
    const report = await runLiveCase(target, testCase);
    reports.push(report);
    onCase?.(report);
  }
  return reports;
}
