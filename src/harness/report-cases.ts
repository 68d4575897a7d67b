/**
 * The JUnit report of a failing run as a case of `loopgate run`: `contract:report/<id>`.
 *
 * A gate that passes renders no failing case, so its own run never shows what a
 * CI view gets when a case fails — and a JUnit writer that kept only a summary
 * line (no failing check names, no expected and actual, nothing of what the
 * model saw) would pass every other case (outside probe 13, plant Q16). Here a
 * known-failing results fixture — a scenario case with two failing checks
 * beside a passing one, and its last model request; a case failed with no
 * checks; a passing and a skipped case — is rendered to JUnit and read back:
 * by the writer's own verification (verify.ts, what `writeReports` runs before
 * it writes a file), and by this case directly, on the failure element of the
 * failing scenario.
 */
import type { CaseResult, CheckResult, RunResults } from '../report/results.ts';
import { renderJunit } from '../report/junit.ts';
import { parseXml, type XmlElement } from '../report/read-xml.ts';
import { RESULTS_SCHEMA, summarize } from '../report/results.ts';
import { verifyReports } from '../report/verify.ts';
import { checksCase, type Case } from './cases.ts';

const FAILING_ID = 'scenario:refunds/refund-over-the-limit-asks-first';

/** Two failing checks: one with plain values, one with structured ones (rendered over several lines). */
const OUTCOME_CHECK: CheckResult = {
  name: 'outcome',
  passed: false,
  message: 'expected replied, got failed{max_steps}',
  expected: 'replied',
  actual: 'failed{max_steps}',
};
const POLICY_CHECK: CheckResult = {
  name: 'policy',
  passed: false,
  message: 'issue_refund was allowed without asking',
  expected: [{ tool: 'issue_refund', decision: 'deny', by: 'refund-limit' }],
  actual: [{ tool: 'issue_refund', decision: 'allow', by: 'default' }],
};
const REQUEST_LINES = [
  'model: scenario-model · max tokens 4096',
  'user: Refund ORD-1002 in full, please.',
  'assistant: call issue_refund#r1 {"order_id":"ORD-1002","amount":500}',
];

function fixture(): RunResults {
  const cases: CaseResult[] = [
    {
      id: FAILING_ID,
      kind: 'scenario',
      title: 'A refund over the limit asks before it moves money',
      file: 'scenarios/refunds/refund-over-the-limit-asks-first.yaml',
      status: 'failed',
      outcome: 'failed{max_steps}',
      durationMs: 42,
      failure: `${OUTCOME_CHECK.name}: ${OUTCOME_CHECK.message}`,
      checks: [OUTCOME_CHECK, { name: 'history', passed: true, message: 'as expected' }, POLICY_CHECK],
      requests: [
        { turn: 0, step: 0, attempt: 1, seq: 3, lines: ['user: Refund ORD-1002 in full, please.'] },
        { turn: 0, step: 1, attempt: 1, seq: 7, lines: REQUEST_LINES },
      ],
    },
    {
      id: 'contract:anthropic/reply',
      kind: 'contract',
      title: 'anthropic: a reply',
      status: 'failed',
      durationMs: 5,
      failure: 'the case threw: adapter crashed on an empty stream',
      checks: [],
    },
    { id: 'scenario:refunds/small-refund-runs', kind: 'scenario', title: 'A small refund runs', status: 'passed', durationMs: 9, checks: [] },
    { id: 'scenario:live/refund', kind: 'scenario', title: 'A live refund', status: 'skipped', durationMs: 0, skipReason: 'a live scenario', checks: [] },
  ];
  return {
    schema: RESULTS_SCHEMA,
    tool: { name: 'loopgate', version: '0.0.0-fixture' },
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:00:01.000Z',
    durationMs: 1000,
    seed: 1,
    summary: summarize(cases),
    cases,
  };
}

function junitFailureTellsWhy(): CheckResult[] {
  const results = fixture();
  const junit = renderJunit(results);
  const checks: CheckResult[] = [];
  let verified: string | undefined;
  try {
    verifyReports(results, { junit });
  } catch (error) {
    verified = error instanceof Error ? error.message : String(error);
  }
  checks.push({
    name: "the writer's verification accepts it",
    passed: verified === undefined,
    message: verified ?? 'verifyReports accepts the JUnit of the failing run',
  });
  let failure: XmlElement | undefined;
  try {
    const suites = parseXml(junit).children.filter((e) => e.name === 'testsuite');
    const testcase = suites.flatMap((s) => s.children).find((e) => e.name === 'testcase' && e.attributes.name === FAILING_ID);
    failure = testcase?.children.find((e) => e.name === 'failure');
  } catch (error) {
    checks.push({ name: 'the JUnit reads', passed: false, message: `not well-formed XML: ${error instanceof Error ? error.message : String(error)}` });
    return checks;
  }
  if (!failure) {
    checks.push({ name: 'the failing case has a failure element', passed: false, message: `no <failure> in the testcase ${FAILING_ID}` });
    return checks;
  }
  const text = failure.text.replace(/[ \t]+/g, ' ');
  const message = failure.attributes.message ?? '';
  checks.push({
    name: 'the failure message sums the case up',
    passed: message.includes(OUTCOME_CHECK.message),
    message: `message="${message}"`,
    expected: `contains "${OUTCOME_CHECK.message}"`,
    actual: message,
  });
  checks.push({
    name: 'the failure type names the first failing check',
    passed: failure.attributes.type === OUTCOME_CHECK.name,
    message: `type="${failure.attributes.type ?? ''}"`,
    expected: OUTCOME_CHECK.name,
    actual: failure.attributes.type ?? '',
  });
  const wanted = [
    `${OUTCOME_CHECK.name}: ${OUTCOME_CHECK.message}`,
    'expected: replied',
    'actual: failed{max_steps}',
    `${POLICY_CHECK.name}: ${POLICY_CHECK.message}`,
    '"decision": "deny"',
    '"decision": "allow"',
    'what the model saw at the failing step (turn 0, step 1)',
    ...REQUEST_LINES,
  ];
  const missing = wanted.filter((w) => !text.includes(w));
  checks.push({
    name: 'the failure names each failing check with its expected and actual, and the failing request',
    passed: missing.length === 0,
    message: missing.length === 0 ? 'all there' : `the <failure> text lacks ${missing.map((m) => `"${m}"`).join(', ')}`,
    expected: wanted,
    actual: failure.text,
  });
  const passingShown = text.includes('history: as expected');
  checks.push({
    name: 'a passing check is not shown as a failure',
    passed: !passingShown,
    message: passingShown ? 'the <failure> text lists the passing check "history"' : 'only the failing checks',
  });
  return checks;
}

export function reportCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:report/junit-failure-tells-why-the-case-failed',
        title: "report: a failing case's JUnit failure names each failing check, its expected and actual, and what the model saw",
        file: 'src/harness/report-cases.ts',
      },
      junitFailureTellsWhy,
    ),
  ];
}
