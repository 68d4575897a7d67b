/**
 * The text the reports write on their own, whatever a run holds: a run of one
 * case of each kind and status — a failed check with what it expected, a
 * timeline entry of each kind, a request, a regression, a fuzz subject — whose
 * every text of a user's is one character, rendered in every format the CLI
 * writes, with its digits taken out (a run's counts and times are its own).
 *
 * A secret found in it would be redacted out of the reports' own structure (a
 * results.json key, a case's status, a JUnit tag, a case id's kind): the
 * results would not read back, and the case could never pass invariant 15,
 * which reads the same renderings. The gate refuses such a secret where it is
 * declared (harness/gate-words.ts). Rendered, not listed, so a new field or tag
 * is covered without a list to keep.
 */
import { renderConsole } from './console.ts';
import { CASE_KINDS } from './format.ts';
import { renderHtml } from './html.ts';
import { renderResultsJson } from './json.ts';
import { renderJunit } from './junit.ts';
import { renderMarkdown } from './markdown.ts';
import { RESULTS_SCHEMA, summarize, type CaseResult, type CaseStatus, type Regression, type RunResults, type TimelineEntry } from './results.ts';

const TIMELINE_KINDS: Record<TimelineEntry['kind'], true> = {
  inbox: true,
  turn: true,
  step: true,
  model_call: true,
  model_result: true,
  retry: true,
  tool_call: true,
  tool_result: true,
  policy: true,
  compaction: true,
  cancel: true,
  fault: true,
  outcome: true,
};
const REGRESSION_KINDS: Record<Regression['kind'], true> = { status: true, steps: true, tokens: true, cost: true, missing: true };
const STATUSES: readonly CaseStatus[] = ['passed', 'failed', 'skipped'];

let text: string | undefined;

/** The reports' own text (built once). */
export function reportsOwnText(): string {
  text ??= build();
  return text;
}

function build(): string {
  const cases: CaseResult[] = CASE_KINDS.flatMap((kind) => STATUSES.map((status) => sampleCase(kind, status)));
  const regressions = Object.keys(REGRESSION_KINDS).map((kind) => ({ id: 'scenario:x', kind: kind as Regression['kind'], message: 'x' }));
  const results: RunResults = { ...sampleRun(cases), regressions };
  const fuzz: RunResults = { ...results, fuzz: { agent: 'x', tools: ['x'], withoutArgs: ['x'] } };
  const rendered = [results, fuzz].flatMap((r) => REPORT_FORMATS.map(([, render]) => render(r)));
  return rendered.join('\n').replace(/[0-9]+/g, ' ');
}

/** Every format the CLI writes, by the name a finding gives it. */
export const REPORT_FORMATS: readonly (readonly [string, (results: RunResults) => string])[] = [
  ['the JSON report', renderResultsJson],
  ['the JUnit report', renderJunit],
  ['the Markdown report', renderMarkdown],
  ['the HTML report', renderHtml],
  ['the console report', renderConsole],
];

/** A run of these cases with nothing of its own to tell (version 0, at the epoch, seed 0): what a case's report is rendered in. */
export function sampleRun(cases: readonly CaseResult[]): RunResults {
  return {
    schema: RESULTS_SCHEMA,
    tool: { name: 'loopgate', version: '0' },
    startedAt: new Date(0).toISOString(),
    finishedAt: new Date(0).toISOString(),
    durationMs: 0,
    seed: 0,
    summary: summarize(cases),
    cases,
  };
}

function sampleCase(kind: CaseResult['kind'], status: CaseStatus): CaseResult {
  const timeline: TimelineEntry[] = Object.keys(TIMELINE_KINDS).map((k, i) => ({
    at: 0,
    kind: k as TimelineEntry['kind'],
    turn: 1,
    step: 1,
    label: 'x',
    ...(i === 0 ? { request: 0 } : {}),
  }));
  return {
    id: `${kind}:x`,
    kind,
    title: 'x',
    file: 'x',
    status,
    outcome: 'x',
    durationMs: 0,
    virtualMs: 0,
    ...(status === 'failed' ? { failure: 'x' } : {}),
    ...(status === 'skipped' ? { skipReason: 'x' } : {}),
    checks: [{ name: 'x', passed: status !== 'failed', message: 'x', expected: 'x', actual: 'x' }],
    metrics: { turns: 1, steps: 1, toolCalls: 1, inputTokens: 1, outputTokens: 1, modelRequests: 1 },
    timeline,
    requests: [{ turn: 1, step: 1, attempt: 1, seq: 1, lines: ['x'] }],
  };
}
