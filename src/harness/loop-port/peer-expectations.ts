/**
 * A scenario's expectations on a peer's run. The outcome classes judge it — the
 * last turn's, every turn's, a numbered turn's — and fail the case when they
 * differ. Everything else a scenario expects is loopgate's own exact lines (the
 * history as loopgate persists it, its trace shape, its tool results and
 * notices): computed on the peer's run and shown as a diff against loopgate's
 * expectation, never failed. Keys that only loopgate's event log can answer
 * (events, policy decisions, inbox, result codes, host responses) are listed as
 * not compared.
 */
import { outcomeLabel, outcomeProblem } from '../../kernel/index.ts';
import type { CheckResult } from '../../report/results.ts';
import { equalCheck, matchLines } from '../checks/lines.ts';
import { systemLines } from '../checks/expectations.ts';
import { renderMessages, spanShape } from '../render.ts';
import type { Expectation } from '../scenario/schema.ts';
import { finalHistory, type PeerRun } from './peer-run.ts';

const LOG_ONLY = ['events', 'policy', 'inbox', 'toolResults', 'models', 'responses'] as const;

/**
 * A peer turn's outcome as the report names it: its label in the alphabet, or
 * what keeps it out. The adapter's classifier — a team's own among them, held to
 * no type in JavaScript — may report anything: named, it fails the outcome check
 * (and invariant 4 says why), never throws out of the case.
 */
export function reportedOutcomeLabel(outcome: unknown): string {
  const problem = outcomeProblem(outcome);
  return problem === undefined ? outcomeLabel(outcome as Parameters<typeof outcomeLabel>[0]) : `(outside the alphabet: ${problem})`;
}

export function checkPeerExpectations(run: PeerRun, expect: Expectation): CheckResult[] {
  const out: CheckResult[] = [];
  const outcomes = run.reports.map((r) => reportedOutcomeLabel(r.outcome));
  if (run.unsettled) outcomes.push(`(turn ${run.unsettled.turn} never ended)`);
  if (expect.outcome !== undefined) out.push(equalCheck('outcome', expect.outcome, outcomes[outcomes.length - 1] ?? '(no turn ran)'));
  if (expect.outcomes !== undefined) out.push(equalCheck('outcomes', expect.outcomes, outcomes));
  for (const [turn, want] of Object.entries(expect.turns ?? {})) {
    if (want.outcome !== undefined) out.push(equalCheck(`turn ${turn} outcome`, want.outcome, outcomes[Number(turn)] ?? '(never ran)'));
  }

  const diffs: CheckResult[] = [];
  const last = run.reports[run.reports.length - 1];
  if (expect.reply !== undefined) {
    const want = typeof expect.reply === 'string' ? expect.reply : expect.reply.contains;
    const got = last?.reply ?? '(no reply)';
    diffs.push(
      typeof expect.reply === 'string'
        ? equalCheck('reply', want, got)
        : { name: 'reply', passed: got.includes(want), message: `contains ${JSON.stringify(want)}`, expected: want, actual: got },
    );
  }
  if (expect.history) diffs.push(...matchLines('history', renderMessages(finalHistory(run)), expect.history));
  if (expect.lastRequest) {
    const request = run.requests[run.requests.length - 1];
    diffs.push(...matchLines('last request', request ? renderMessages(request.messages) : [], expect.lastRequest));
  }
  if (expect.system) diffs.push(...matchLines('system prompt', systemLines(run.requests[run.requests.length - 1]), expect.system));
  if (expect.trace) {
    const trace = run.traces[run.traces.length - 1];
    diffs.push(...matchLines('trace', trace ? spanShape(trace) : [], expect.trace));
  }
  if (expect.toolCalls)
    diffs.push(
      equalCheck(
        'tool calls',
        expect.toolCalls,
        run.toolRuns.map((t) => t.name),
      ),
    );
  for (const [tool, count] of Object.entries(expect.executions ?? {}))
    diffs.push(equalCheck(`executions ${tool}`, count, run.executions.get(tool) ?? 0, `${tool} ran ${count} time(s)`));
  if (expect.requests !== undefined) {
    const requests = run.wire ? run.wireRequests : run.requests.length;
    diffs.push(equalCheck('requests', expect.requests, requests, `${requests} model requests`));
  }
  if (expect.clock !== undefined) diffs.push(equalCheck('clock', expect.clock, run.virtualMs, `virtual time ${run.virtualMs} ms`));
  out.push(...diffs.map(asDiff));

  const logOnly = LOG_ONLY.filter((k) => expect[k] !== undefined);
  if (logOnly.length > 0)
    out.push({ name: 'not compared', passed: true, message: `${logOnly.join(', ')}: only loopgate's event log records these; ${run.loop.id} keeps none` });
  return out;
}

/** A line-exact expectation of loopgate's, shown against the peer's run: never a failure. */
function asDiff(check: CheckResult): CheckResult {
  if (check.passed) return { ...check, name: `diff: ${check.name}`, message: `same as loopgate: ${check.message}` };
  return { ...check, name: `diff: ${check.name}`, passed: true, message: `differs from loopgate (shown, not judged): ${check.message}` };
}
