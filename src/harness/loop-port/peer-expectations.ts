/**
 * A scenario's expectations on a peer's run. The outcome classes judge it — the
 * last turn's, every turn's, a numbered turn's — and fail the case when they
 * differ. The rest is computed on the peer's run, and how it counts depends on
 * whose expectations they are:
 * - `judged: 'all'` — the config's own loop (a team whose agent runs in the AI
 *   SDK's loop, `loop: aiSdkLoop(…)`): its scenarios are its requirements of
 *   that loop, so every expectation the run can answer fails the case when it
 *   differs, as on loopgate's loop — reply and `assert`, history, requests,
 *   tool calls and executions, usage, a numbered turn's reply and requests.
 * - `judged: 'outcomes'` — another loop compared with the config's (`--loop`
 *   over the bundled suite, whose lines are loopgate's own exact history, trace
 *   shape and notices): shown as a diff against the expectation, never failed.
 * Keys that only loopgate's event log can answer (events, policy decisions,
 * inbox, result codes, host responses; a turn's tool results, trace and detail)
 * are never dropped unsaid: compared with another loop, listed as not compared;
 * on the config's own loop, a requirement nothing can judge, they fail the case
 * naming what to write instead (a team's `toolResults` passing unjudged hid a
 * tool that returned nothing: probe 31, F1).
 */
import { outcomeLabel, outcomeProblem } from '../../kernel/index.ts';
import type { CheckResult } from '../../report/results.ts';
import { equalCheck, matchLines } from '../checks/lines.ts';
import { systemLines, usageChecks } from '../checks/expectations.ts';
import { renderMessages, spanShape } from '../render.ts';
import type { Expectation } from '../scenario/schema.ts';
import { checkAssertionsOn, NO_REPLY_ASSERTIONS } from '../checks/reply-assertions.ts';
import type { AssertionRun, ReplyAssertionContext } from '../checks/reply-assertion-types.ts';
import { finalHistory, type PeerRun } from './peer-run.ts';

const LOG_ONLY = ['events', 'policy', 'inbox', 'toolResults', 'models', 'responses'] as const;
const TURN_LOG_ONLY = ['toolResults', 'trace', 'detail'] as const;

/** Whose expectations a peer run is held to: the config's own loop's (all judged), or loopgate's, compared. */
export type PeerJudging = 'all' | 'outcomes';

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

export async function checkPeerExpectations(
  run: PeerRun,
  expect: Expectation,
  judged: PeerJudging = 'outcomes',
  replies: ReplyAssertionContext = NO_REPLY_ASSERTIONS,
): Promise<CheckResult[]> {
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
  if (expect.reply !== undefined) diffs.push(replyCheck('reply', expect.reply, last?.reply));
  if (expect.assert) diffs.push(...(await checkAssertionsOn({ secrets: run.secrets, run: assertionRun(run, outcomes) }, expect.assert, replies)));
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
  if (expect.usage)
    diffs.push(
      ...usageChecks(expect.usage, {
        steps: run.reports.reduce((n, r) => n + r.steps, 0),
        input: run.reports.reduce((n, r) => n + r.usage.inputTokens, 0),
        output: run.reports.reduce((n, r) => n + r.usage.outputTokens, 0),
        calls: run.toolRuns.length,
      }),
    );
  if (expect.clock !== undefined) diffs.push(equalCheck('clock', expect.clock, run.virtualMs, `virtual time ${run.virtualMs} ms`));
  const turnLogOnly = new Set<string>();
  for (const [key, want] of Object.entries(expect.turns ?? {})) {
    const turn = Number(key);
    if (want.reply !== undefined) diffs.push(replyCheck(`turn ${turn} reply`, want.reply, run.reports[turn]?.reply));
    const sent = run.requests.filter((_, i) => run.requestTurns[i] === turn);
    if (want.requests !== undefined && !run.wire) diffs.push(equalCheck(`turn ${turn} requests`, want.requests, sent.length, `${sent.length} model requests`));
    if (want.lastRequest)
      diffs.push(...matchLines(`turn ${turn} last request`, sent.length ? renderMessages(sent[sent.length - 1]!.messages) : [], want.lastRequest));
    if (want.system) diffs.push(...matchLines(`turn ${turn} system prompt`, systemLines(sent[sent.length - 1]), want.system));
    for (const k of TURN_LOG_ONLY) if (want[k] !== undefined) turnLogOnly.add(`turns.${key}.${k}`);
    if (want.requests !== undefined && run.wire) turnLogOnly.add(`turns.${key}.requests`);
  }
  out.push(...(judged === 'all' ? diffs : diffs.map(asDiff)));

  const logOnly = [...LOG_ONLY.filter((k) => expect[k] !== undefined), ...turnLogOnly];
  if (logOnly.length > 0)
    out.push(
      judged === 'all'
        ? // The team's requirement of its own loop: one nothing can judge must not pass as if it held.
          {
            name: 'not judged',
            passed: false,
            message: `${logOnly.join(', ')}: ${run.loop.id} keeps no event log to judge ${logOnly.length === 1 ? 'it' : 'them'} against: say it in \`history\` lines (a result reads \`result#<call> ok: <output>\`), \`executions\` or \`toolCalls\`, or run the file with --loop loopgate`,
          }
        : { name: 'not compared', passed: true, message: `${logOnly.join(', ')}: only loopgate's event log records these; ${run.loop.id} keeps none` },
    );
  return out;
}

function replyCheck(name: string, want: string | { readonly contains: string }, reply: string | undefined): CheckResult {
  const got = reply ?? '(no reply)';
  if (typeof want === 'string') return equalCheck(name, want, got);
  return { name, passed: got.includes(want.contains), message: `contains ${JSON.stringify(want.contains)}`, expected: want.contains, actual: got };
}

/**
 * What a predicate sees of a peer's run. A peer keeps no event log: a predicate that reads `events` throws, and so
 * fails naming why, rather than judging an empty list (where "no tool failed" holds of a run whose refund threw:
 * outside probe 32, F18).
 */
function assertionRun(run: PeerRun, outcomes: readonly string[]): AssertionRun {
  return {
    scenario: run.scenario.name,
    outcome: outcomes[outcomes.length - 1],
    outcomes,
    replies: run.reports.map((r) => r.reply),
    history: renderMessages(finalHistory(run)),
    toolCalls: run.toolRuns.map((t) => t.name),
    get events(): never {
      throw new Error(
        `run.events: ${run.loop.id} keeps no event log to judge it against: read run.history, run.toolCalls or run.replies, or run the file with --loop loopgate`,
      );
    },
  };
}

/** A line-exact expectation of loopgate's, shown against the peer's run: never a failure. */
function asDiff(check: CheckResult): CheckResult {
  if (check.passed) return { ...check, name: `diff: ${check.name}`, message: `same as loopgate: ${check.message}` };
  return { ...check, name: `diff: ${check.name}`, passed: true, message: `differs from loopgate (shown, not judged): ${check.message}` };
}
