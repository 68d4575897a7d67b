/**
 * `--replay`: serves a recording's exchanges with nock (no network at all) and
 * runs the live cases again. A case passes when its check passes and its
 * normalized result is the one recorded.
 */
import { isDeepStrictEqual } from 'node:util';
import { LIVE_CASES } from '../contract-suite/live-cases.ts';
import { runLiveCase, type LiveCaseReport } from './live.ts';
import type { Recording } from './recording-file.ts';

/** The key replay sends: nothing real leaves the process. */
const REPLAY_KEY = 'loopgate-replay-key';

export async function replayRecording(recording: Recording, onCase?: (report: LiveCaseReport) => void): Promise<LiveCaseReport[]> {
  const { default: nock } = await import('nock');
  if (!nock.isActive()) nock.activate();
  nock.cleanAll();
  nock.disableNetConnect();
  const reports: LiveCaseReport[] = [];
  // A request no exchange answers reaches the adapter as "fetch failed"; say which it was.
  let unmatched: string[] = [];
  const noMatch = (request: { method: string; url: string }) => unmatched.push(`${request.method} ${request.url}`);
  nock.emitter.on('no match', noMatch);
  try {
    nock.define(recording.exchanges as unknown as Parameters<typeof nock.define>[0]);
    const target = { provider: recording.provider, model: recording.model, apiKey: REPLAY_KEY, baseURL: recording.baseURL };
    for (const testCase of LIVE_CASES) {
      const recorded = recording.cases.find((c) => c.id === testCase.id);
      let report: LiveCaseReport;
      if (!recorded) {
        report = { id: testCase.id, title: testCase.title, status: 'skip', reason: 'not in the recording' };
      } else {
        unmatched = [];
        const run = withUnmatched(await runLiveCase(target, testCase), unmatched);
        const same = isDeepStrictEqual(JSON.parse(JSON.stringify(run.result)), recorded.result);
        report =
          run.status === 'fail'
            ? run
            : same
              ? run
              : {
                  ...run,
                  status: 'fail',
                  reason: `replayed result differs from the recorded one: recorded ${JSON.stringify(recorded.result)}, replayed ${JSON.stringify(run.result)}`,
                };
      }
      reports.push(report);
      onCase?.(report);
    }
  } finally {
    nock.emitter.removeListener('no match', noMatch);
    nock.cleanAll();
    nock.enableNetConnect();
    nock.restore();
  }
  return reports;
}

function withUnmatched(report: LiveCaseReport, unmatched: readonly string[]): LiveCaseReport {
  if (unmatched.length === 0) return report;
  const reason = `the recording holds no exchange for this request: ${[...new Set(unmatched)].join(', ')} (edited, or made by another version; record it again)`;
  return { ...report, status: 'fail', reason };
}
