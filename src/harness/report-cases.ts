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
 *
 * The cost of a call whose client reported a token count ≥ 2^53 − 1 as a
 * case: `contract:report/uncounted-tokens-leave-the-cost-unknown`. The bundled
 * suite's three such scenarios were priced at 2^53 − 1 tokens (as a budget
 * reads the count, and as the wire adapters hold a larger one) and its printed
 * cost was about $216 billion; here small scenario runs with a price table —
 * one call of 1e308 input tokens beside a priced call, one of 1e308 and one of
 * exactly 2^53 − 1 (what an adapter makes of 2^60) alone, one priced in full —
 * are reported, and every report must name the unknown part instead of
 * pricing it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedactor, redactDeep, secretFinder } from '../kernel/index.ts';
import { runCases } from './runner.ts';
import type { CaseResult, CheckResult, Regression, RunResults } from '../report/results.ts';
import { type Baseline, baselineFrom, compareWithBaseline, parseBaselineJson, renderBaselineJson } from '../report/baseline.ts';
import { renderConsole } from '../report/console.ts';
import { costliest } from '../report/cost/costliest.ts';
import { caseCostText } from '../report/cost/format-cost.ts';
import type { PriceTable } from '../report/cost/price-table.ts';
import { parseResultsJson, renderResultsJson } from '../report/json.ts';
import { renderHtml } from '../report/html.ts';
import { renderJunit } from '../report/junit.ts';
import { renderMarkdown } from '../report/markdown.ts';
import { REPORT_FORMATS } from '../report/own-text.ts';
import { REPORT_FILES, REPORTERS, type FileReporter } from '../report/reporters.ts';
import { parseXml, type XmlElement } from '../report/read-xml.ts';
import { RESULTS_SCHEMA, runPassed, summarize } from '../report/results.ts';
import { mergeResults } from '../report/merge.ts';
import { compareVerdicts, verdictsOf } from '../report/peer-verdicts.ts';
import { verifyReports } from '../report/verify.ts';
import { writeReports } from '../report/write.ts';
import { checksCase, type Case } from './cases.ts';
import { secretsGarblingTheReports } from './gate-words.ts';
import { parseScenario } from './scenario/load.ts';
import { metricsOf } from './scenario-case.ts';
import { runScenario } from './second-host.ts';

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

/**
 * Each testsuite's counts are its testcases': `tests` all of them, `failures` those with a <failure>, `skipped` those
 * with a <skipped>. A CI view reads the counts (outside probe 71, junit-suite-failures-count-skipped: a suite counting
 * its skipped cases as failures showed 211 failures on a green gate, and no case compared the two).
 */
function suitesCountTheirCases(junit: string): CheckResult {
  const wrong: string[] = [];
  const root = parseXml(junit);
  const suites = root.children.filter((e) => e.name === 'testsuite');
  // The root's counts are its suites' summed (a baseline suite and a "nothing was checked" one included).
  for (const name of ['tests', 'failures', 'skipped']) {
    const sum = suites.reduce((n, suite) => n + Number(suite.attributes[name] ?? 0), 0);
    if (root.attributes[name] !== String(sum)) wrong.push(`testsuites: ${name}="${root.attributes[name] ?? ''}", its suites ${sum}`);
  }
  for (const suite of suites) {
    const cases = suite.children.filter((e) => e.name === 'testcase');
    const having = (tag: string) => cases.filter((c) => c.children.some((e) => e.name === tag)).length;
    const counts = { tests: cases.length, failures: having('failure'), skipped: having('skipped') };
    for (const [name, count] of Object.entries(counts)) {
      if (suite.attributes[name] !== String(count)) wrong.push(`${suite.attributes.name}: ${name}="${suite.attributes[name] ?? ''}", its testcases ${count}`);
    }
  }
  return {
    name: "each testsuite's tests, failures and skipped are its testcases'",
    passed: wrong.length === 0,
    message: wrong.length === 0 ? 'every suite counts as its testcases' : wrong.join('; '),
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
  checks.push(suitesCountTheirCases(junit));
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

const PRICES: PriceTable = { currency: 'USD', models: { 'scenario-model': { input: 3, output: 15 } } };
/** The priced call: 1000 input tokens at $3 and 200 output at $15 per million. */
const PRICED = 0.006;
/** A case priced in full that costs more: 100 000 input and 20 000 output tokens. */
const COSTLIER = 0.6;
const SUITE = PRICED + COSTLIER;
const UNCOUNTED_NOTE = 'with a token count ≥ 2^53 − 1';

function uncountedScenario(steps: readonly string[]): string {
  const script = steps.map((usage, i) => `    - reply: reply ${i + 1}\n      usage: ${usage}`).join('\n');
  const inbox = steps.map((_, i) => `  - say: message ${i + 1}`).join('\n');
  return `name: uncounted\nprovider:\n  script:\n${script}\nexpect: { outcome: replied }\ninbox:\n${inbox}\n`;
}

async function uncountedCase(id: string, steps: readonly string[]): Promise<CaseResult> {
  const run = await runScenario(parseScenario(uncountedScenario(steps), `${id}.yaml`), { seed: 1 });
  return { id: `scenario:${id}`, kind: 'scenario', title: id, status: 'passed', durationMs: 1, checks: [], metrics: metricsOf(run, PRICES) };
}

async function uncountedTokensLeaveTheCostUnknown(): Promise<CheckResult[]> {
  const beside = await uncountedCase('cost/uncounted-beside-priced', ['{ input: 1e308, output: 20 }', '{ input: 1000, output: 200 }']);
  const alone = await uncountedCase('cost/uncounted-alone', ['{ input: 1e308, output: 20 }', `{ input: ${Number.MAX_SAFE_INTEGER}, output: 5 }`]);
  const costlier = await uncountedCase('cost/priced-in-full', ['{ input: 100000, output: 20000 }']);
  const cases = [beside, alone, costlier];
  const results: RunResults = { ...fixture(), summary: summarize(cases), cases };
  const checks: CheckResult[] = [];
  const cost = beside.metrics?.cost;
  checks.push({
    name: "the uncounted call is counted apart, not in the case's amount",
    passed: cost?.amount === PRICED && cost.uncountedCalls === 1 && cost.unpricedCalls === 0,
    message: `amount ${cost?.amount}, uncountedCalls ${cost?.uncountedCalls ?? 0}, unpricedCalls ${cost?.unpricedCalls}`,
    expected: { amount: PRICED, uncountedCalls: 1, unpricedCalls: 0 },
    actual: { amount: cost?.amount, uncountedCalls: cost?.uncountedCalls, unpricedCalls: cost?.unpricedCalls },
  });
  const texts = [
    {
      what: 'the case with a priced call',
      text: beside.metrics?.cost ? caseCostText(beside.metrics.cost) : '',
      want: [`$${PRICED}`, `1 call ${UNCOUNTED_NOTE}`, 'cost unknown'],
    },
    {
      what: 'the case with only uncounted calls (1e308, and 2^53 − 1 as an adapter holds 2^60)',
      text: alone.metrics?.cost ? caseCostText(alone.metrics.cost) : '',
      want: [`unknown: 2 calls ${UNCOUNTED_NOTE}`],
    },
  ];
  for (const t of texts)
    checks.push({
      name: `${t.what}: its cost text names the unknown part`,
      passed: t.want.every((w) => t.text.includes(w)),
      message: t.text,
      expected: t.want,
      actual: t.text,
    });
  const suite = results.summary.cost;
  checks.push({
    name: 'the suite cost is the priced amount, with the uncounted calls beside it',
    passed: suite?.amount === SUITE && suite.uncountedCalls === 3,
    message: `amount ${suite?.amount}, uncountedCalls ${suite?.uncountedCalls ?? 0}`,
    expected: { amount: SUITE, uncountedCalls: 3 },
    actual: { amount: suite?.amount, uncountedCalls: suite?.uncountedCalls },
  });
  const consoleText = renderConsole(results, { color: false, width: 200 });
  const suiteLine = consoleText.split('\n').find((line) => /^\s*cost\s/.test(line)) ?? '';
  const wantSuite = `$${SUITE} + 3 calls ${UNCOUNTED_NOTE} (cost unknown) over 3 cases`;
  checks.push({
    name: "the console's suite cost line",
    passed: suiteLine.includes(wantSuite),
    message: suiteLine.trim(),
    expected: wantSuite,
    actual: suiteLine.trim(),
  });
  const listed = costliest(cases).map((c) => c.id);
  const order = [beside.id, alone.id, costlier.id];
  checks.push({
    name: 'the costliest list puts the unknown costs first, as it does unpriced ones',
    passed: listed.join() === order.join(),
    message: listed.join(', '),
    expected: order,
    actual: listed,
  });
  // "costliest 5 of 506 cases" listed $0.0001 cases with an unpriced call above $54 bn ones (outside probe 14, CLI-5):
  // the unknown costs come first under a heading of their own, then the costliest of those priced in full.
  const section = (text: string) => {
    const lines = text.split('\n');
    const start = lines.findIndex((line) => line.startsWith('cost unknown in') || line.startsWith('cost, costliest') || line.startsWith('cost by case'));
    if (start === -1) return [];
    const end = lines.findIndex((line, i) => i > start && line.trim() === '');
    return lines.slice(start, end === -1 ? undefined : end).map((line) => line.replace(/ — .*$/, ''));
  };
  for (const [maxCosts, want] of [
    [
      5,
      [
        'cost unknown in 2 cases (an unpriced model, or a token count ≥ 2^53 − 1):',
        `  ${beside.id}`,
        `  ${alone.id}`,
        'cost by case, the rest (1):',
        `  ${costlier.id}`,
      ],
    ],
    [
      1,
      [
        'cost unknown in 2 cases (an unpriced model, or a token count ≥ 2^53 − 1), the first 1:',
        `  ${beside.id}`,
        'cost by case, the rest (1):',
        `  ${costlier.id}`,
      ],
    ],
  ] as const) {
    const listedText = section(renderConsole(results, { color: false, width: 200, maxCosts }));
    checks.push({
      name: `the console lists the unknown costs apart, then the costliest of the rest (at most ${maxCosts} each)`,
      passed: listedText.join('\n') === want.join('\n'),
      message: listedText.join(' | '),
      expected: want,
      actual: listedText,
    });
  }
  const junit = renderJunit(results);
  const property = `name="cost" value="$${SUITE} + 3 calls ${UNCOUNTED_NOTE} (cost unknown)"`;
  checks.push({
    name: "JUnit's suite cost property",
    passed: junit.includes(property),
    message: property,
    expected: property,
    actual: junit.match(/name="cost" value="[^"]*"/)?.[0] ?? '',
  });
  const read = parseResultsJson(renderResultsJson(results), 'uncounted.json');
  checks.push({
    name: 'the JSON results keep the uncounted calls',
    passed: read.summary.cost?.uncountedCalls === 3 && read.cases[0]?.metrics?.cost?.uncountedCalls === 1,
    message: JSON.stringify(read.summary.cost),
  });
  const baseline = baselineFrom(results).cases[beside.id];
  checks.push({
    name: 'a baseline keeps no cost for a case with an uncounted call',
    passed: baseline !== undefined && baseline.cost === undefined,
    message: JSON.stringify(baseline),
  });
  return checks;
}

/**
 * One scenario run as a passing case with its metrics: one reply per usage, each to its own message
 * (so its steps are the number of usages).
 */
async function usageCase(id: string, steps: readonly string[]): Promise<CaseResult> {
  const run = await runScenario(parseScenario(uncountedScenario(steps), `${id}.yaml`), { seed: 1 });
  return { id, kind: 'scenario', title: id, status: 'passed', durationMs: 1, checks: [], metrics: metricsOf(run, PRICES) };
}

/** A regression the comparison must report: its case, kind, and the numbers its message must name. */
interface WantedRegression {
  readonly id: string;
  readonly kind: Regression['kind'];
  readonly says: readonly string[];
}

/** Why the writer's read-back refuses a report of `results` (every file format), or undefined when it accepts them all. */
function reportsRefused(results: RunResults): string | undefined {
  try {
    verifyReports(results, {
      json: renderResultsJson(results),
      junit: renderJunit(results),
      markdown: renderMarkdown(results),
      html: renderHtml(results),
      console: renderConsole(results),
    });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

async function baselineReportsEveryRegression(): Promise<CheckResult[]> {
  const was = '{ input: 100, output: 10 }';
  const half = '{ input: 50, output: 5 }';
  // Each case as the baseline run saw it, and as this run sees it.
  const pairs: [string, readonly string[], readonly string[]][] = [
    ['scenario:baseline/input-tokens-tenfold', [was], ['{ input: 1000, output: 10 }']],
    ['scenario:baseline/output-tokens-grew', [was], ['{ input: 100, output: 500 }']],
    ['scenario:baseline/steps-doubled', [was], [half, half]],
    ['scenario:baseline/within-the-noise', [was], ['{ input: 110, output: 12 }']],
    ['scenario:baseline/unchanged', [was], [was]],
  ];
  const before: CaseResult[] = [];
  const now: CaseResult[] = [];
  for (const [id, then, today] of pairs) {
    before.push(await usageCase(id, then));
    now.push(await usageCase(id, today));
  }
  const broken = await usageCase('scenario:baseline/fails-now', [was]);
  before.push(broken);
  now.push({ ...broken, status: 'failed', failure: `outcome: ${OUTCOME_CHECK.message}`, checks: [OUTCOME_CHECK] });
  before.push(await usageCase('scenario:baseline/gone', [was]));
  const run = (cases: CaseResult[]): RunResults => ({ ...fixture(), summary: summarize(cases), cases });
  const checks: CheckResult[] = [];
  // The baseline as --update-baseline writes it and --baseline reads it back.
  let baseline: Baseline;
  try {
    baseline = parseBaselineJson(renderBaselineJson(baselineFrom(run(before))), 'baseline.json');
  } catch (error) {
    checks.push({ name: 'the baseline file reads back', passed: false, message: error instanceof Error ? error.message : String(error) });
    return checks;
  }
  const tokens = baseline.cases['scenario:baseline/input-tokens-tenfold']?.tokens;
  checks.push({
    name: 'the baseline counts input and output tokens',
    passed: tokens === 110,
    message: `tokens ${tokens}`,
    expected: 110,
    actual: tokens,
  });
  const found = compareWithBaseline(run(now), baseline);
  const wanted: WantedRegression[] = [
    { id: 'scenario:baseline/fails-now', kind: 'status', says: ['passed in the baseline, fails now', OUTCOME_CHECK.message] },
    { id: 'scenario:baseline/gone', kind: 'missing', says: ['in the baseline (passed), not in this run'] },
    { id: 'scenario:baseline/input-tokens-tenfold', kind: 'tokens', says: ['110 → 1010', '+818%'] },
    { id: 'scenario:baseline/input-tokens-tenfold', kind: 'cost', says: ['$0.00045 → $0.00315', '+600%'] },
    { id: 'scenario:baseline/output-tokens-grew', kind: 'tokens', says: ['110 → 600', '+445%'] },
    { id: 'scenario:baseline/output-tokens-grew', kind: 'cost', says: ['$0.00045 → $0.0078', '+1633%'] },
    { id: 'scenario:baseline/steps-doubled', kind: 'steps', says: ['steps 1 → 2', '+100%'] },
  ];
  for (const w of wanted) {
    const r = found.find((f) => f.id === w.id && f.kind === w.kind);
    checks.push({
      name: `${w.id}: a ${w.kind} regression with its numbers`,
      passed: r !== undefined && w.says.every((s) => r.message.includes(s)),
      message: r ? r.message : `no ${w.kind} regression reported`,
      expected: w.says,
      actual: r?.message ?? null,
    });
  }
  const extra = found.filter((f) => !wanted.some((w) => w.id === f.id && w.kind === f.kind));
  checks.push({
    name: 'nothing else is a regression (noise under the thresholds, an unchanged case)',
    passed: extra.length === 0,
    message: extra.length === 0 ? `${found.length} regressions, all expected` : extra.map((f) => `${f.id} [${f.kind}] ${f.message}`).join('; '),
  });
  // Every report of the run lists them.
  const withRegressions: RunResults = { ...run(now), regressions: found };
  const verified = reportsRefused(withRegressions);
  checks.push({
    name: "the writer's verification accepts every report of the run with regressions",
    passed: verified === undefined,
    message: verified ?? `json, junit, markdown and html each count ${found.length} regressions`,
  });
  // Every case passing, a regression still fails the run: each report must say so (outside probe 22, P30: a page
  // title that ignored regressions read "passed" on a run that exits 1).
  const onlyRegressions: RunResults = { ...run(now.filter((c) => c.status !== 'failed')), regressions: found.filter((f) => f.kind !== 'status') };
  const failedVerified = reportsRefused(onlyRegressions);
  checks.push({
    name: 'every report of a run whose cases all pass, with regressions, says it failed',
    passed: failedVerified === undefined && onlyRegressions.regressions!.length > 0,
    message: failedVerified ?? `json, junit, markdown and html each tell a failed run with ${onlyRegressions.regressions!.length} regressions`,
  });
  // Read by hand, not through the writer's verification (which shares the reports' `runPassed`): the mark a job summary, a
  // PR comment or a page title shows (outside probe 31, F13: a `runPassed` that forgot regressions marked such a run ✅
  // in every report, and the verification agreed).
  const marks = [
    ['summary.md', renderMarkdown(onlyRegressions).split('\n')[0] ?? '', (line: string) => line.startsWith('## ❌ ')],
    ['report.html', /<title>([^<]*)<\/title>/.exec(renderHtml(onlyRegressions))?.[1] ?? '(no title)', (title: string) => /FAILED/.test(title)],
    [
      'junit.xml',
      /<testsuites [^>]*>/.exec(renderJunit(onlyRegressions))?.[0] ?? '(no testsuites)',
      (tag: string) => tag.includes(` failures="${onlyRegressions.regressions!.length}"`),
    ],
  ] as const;
  for (const [report, shown, failedMark] of marks)
    checks.push({ name: `${report} marks the run with regressions failed`, passed: failedMark(shown), message: `shows ${JSON.stringify(shown)}` });
  // The exit code of `run` and `merge-reports` is `runPassed`'s (outside probe 43, F5: `run` kept its own test and exited 0
  // on such a run while every report said FAILED).
  checks.push({
    name: 'the run with regressions did not pass (runPassed: the exit code of run and merge-reports)',
    passed: !runPassed(onlyRegressions),
    message: `runPassed: ${runPassed(onlyRegressions)}`,
  });
  // Each kind's suite counts its skipped cases, as a CI dashboard reads them (probe 31, R2: a per-kind count of 0 passed).
  const skippedNow: CaseResult = {
    ...now[now.length - 1]!,
    id: 'scenario:baseline/skipped-here',
    status: 'skipped',
    skipReason: 'needs a live key',
    checks: [],
  };
  const junit = renderJunit(run([...now, skippedNow]));
  const scenarioSuite = /<testsuite name="scenario"[^>]*>/.exec(junit)?.[0] ?? '(no scenario testsuite)';
  checks.push({
    name: "junit.xml's scenario suite counts its skipped case",
    passed: scenarioSuite.includes(' skipped="1"'),
    message: `shows ${scenarioSuite}`,
  });
  const consoleText = renderConsole(withRegressions, { color: false, width: 400 });
  const unlisted = found.filter((f) => !consoleText.includes(f.message));
  checks.push({
    name: 'the console lists each regression',
    passed: found.length > 0 && unlisted.length === 0,
    message: unlisted.length === 0 ? `${found.length} listed` : `not listed: ${unlisted.map((f) => f.message).join('; ')}`,
  });
  return checks;
}

/** Text that ends a script element, opens a comment, and runs a script, if it reached the HTML unescaped. */
const MARKUP = '</script><script>alert(1)</script><!-- </SCRIPT > & \u2028';
const RESULTS_SCRIPT = '<script type="application/json" id="loopgate-results">';

/**
 * The run's text where a scenario can put it — a title, a failure, a check's message, expected and
 * actual, what the model saw — holding markup. `report.html` embeds the results as JSON in a script
 * element: unescaped, the first `</script` ends it (the writer's read-back then refuses every report
 * of the run, exit 1); escaped, the report is written and reads back as the run.
 */
async function htmlReportEscapesMarkup(): Promise<CheckResult[]> {
  const base = fixture();
  const [failing, ...rest] = base.cases;
  const marked: CaseResult = {
    ...failing!,
    title: `A reply holding ${MARKUP}`,
    failure: `outcome: the reply was ${MARKUP}`,
    checks: [{ ...OUTCOME_CHECK, message: `the reply was ${MARKUP}`, expected: 'replied', actual: MARKUP }, ...failing!.checks.slice(1)],
    requests: [{ turn: 0, step: 0, attempt: 1, seq: 3, lines: [`assistant: ${MARKUP}`] }],
  };
  const cases = [marked, ...rest];
  const results: RunResults = { ...base, summary: summarize(cases), cases };
  const checks: CheckResult[] = [];
  const html = renderHtml(results);
  const start = html.indexOf(RESULTS_SCRIPT);
  const end = html.indexOf('</script>', start);
  const body = start < 0 || end < 0 ? '' : html.slice(start + RESULTS_SCRIPT.length, end);
  const raw = ['<', '>', '&', '\u2028'].filter((c) => body.includes(c));
  checks.push({
    name: 'the embedded results hold no <, >, & or line separator',
    passed: body !== '' && raw.length === 0,
    message:
      body === '' ? 'no embedded results script element' : raw.length === 0 ? 'all escaped' : `unescaped: ${raw.map((c) => JSON.stringify(c)).join(', ')}`,
  });
  let title: unknown;
  try {
    title = (JSON.parse(body) as { cases?: { title?: unknown }[] }).cases?.[0]?.title;
  } catch (error) {
    title = `not JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  checks.push({
    name: 'the embedded results read back with the text as it was',
    passed: title === marked.title,
    message: JSON.stringify(title),
    expected: marked.title,
    actual: title,
  });
  const outDir = mkdtempSync(join(tmpdir(), 'loopgate-html-markup-'));
  try {
    let written: string | undefined;
    let refused: string | undefined;
    try {
      written = (await writeReports(results, { reporters: ['json', 'junit', 'markdown', 'html'], outDir, redact: createRedactor({ secrets: [] }) })).files.html;
    } catch (error) {
      refused = error instanceof Error ? error.message : String(error);
    }
    const onDisk = written !== undefined && existsSync(written) ? readFileSync(written, 'utf8') : '';
    checks.push({
      name: 'the reports of the run are written, report.html with its cases',
      passed: refused === undefined && onDisk.includes(RESULTS_SCRIPT) && onDisk.includes('\\u003c/script\\u003e'),
      message: refused ?? (onDisk === '' ? 'no report.html written' : `wrote ${written}`),
    });
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
  return checks;
}

/**
 * A case's result never carries a long piece of a secret of the case. Whole
 * secrets were redacted from every string of a result (runner.ts), but a piece
 * — half a leaked password an agent wrote, or a fragment a scenario author put
 * in an expectation (`excludes: [...]`) — was printed as it stood in every
 * report of the failing run, though the gate's own rule
 * (`secret-fragments-never-leave`) calls such a piece a leak (probe 21, F2 and
 * F11). A case failing with pieces of its secret in its title, check message,
 * expected and actual values is run through the runner: no piece of at least
 * half the secret (and 8 characters) may be left in the result.
 */
async function secretPiecesNeverReported(): Promise<CheckResult[]> {
  const secret = 'pay-secret-Q7vLm2Xc9RtB4nZp';
  const head = secret.slice(0, 16);
  const middle = secret.slice(6, 22);
  const leaking: Case = {
    id: 'scenario:report-self/leaks-pieces',
    kind: 'scenario',
    title: `an agent that prints ${head}`,
    secrets: [secret],
    run: async () => ({
      status: 'failed',
      outcome: 'replied',
      checks: [
        {
          name: 'history',
          passed: false,
          message: `a line contains "${middle}"`,
          expected: `no line containing "${middle}"`,
          actual: `assistant: the key starts ${head}`,
        },
      ],
    }),
  };
  const [result] = await runCases([leaking], { seed: 1, concurrency: 1 });
  const text = JSON.stringify(result);
  const shortest = Math.max(8, Math.ceil(secret.length / 2));
  const pieces: string[] = [];
  for (let start = 0; start + shortest <= secret.length; start++)
    if (text.includes(secret.slice(start, start + shortest))) pieces.push(`[${start}, ${start + shortest})`);
  return [
    {
      name: 'the failing case is reported failed',
      passed: result?.status === 'failed',
      message: `${result?.status}`,
    },
    {
      name: `no piece of ${shortest} or more of the secret's ${secret.length} characters is left in the result`,
      passed: pieces.length === 0,
      message: pieces.length === 0 ? 'none left' : `${pieces.length} piece(s) left, at ${pieces.slice(0, 3).join(', ')} of the secret`,
      expected: 'none left',
      actual: pieces.length === 0 ? 'none left' : `${pieces.length} left`,
    },
  ];
}

/**
 * A secret the reports' own words hold is refused where it is declared, and only such a secret: each word below,
 * redacted out of a run's results as the writer redacts them, leaves reports that do not read back (a results.json
 * key or status gone) or that still hold it (a JUnit tag, a case id's kind: invariant 15 fails every case); each
 * credential below is accepted and leaves reports that read back and hold none of it (outside probe 64, F10: a
 * scenario's `secrets: [passed]` was told as "a loopgate bug", `[scenario]` threw, an agent's `test` failed every case).
 */
function secretsGarblingTheReportsRefused(): CheckResult[] {
  const words = ['passed', 'scenario', 'test', 'checks', 'executions', 'timeline', 'invariant-15'];
  const credentials = ['sk_live_51HqExampleKey9', 'trvk-Q7m2X9p4L8v3N6z1Hc5D', 'ghp_R2d8Kq0Zt6Wm4Np1Lx9Vb3Cy7Hs5Jf', '4111 1111 1111 1111', 'x9#Lp2!vQ'];
  const fixed = fixture();
  // A passing case with a scenario's own check and an invariant's (the fixture's are outcome, history and policy).
  const checked: CaseResult = {
    id: 'scenario:refunds/refund-runs-once',
    kind: 'scenario',
    title: 'A refund runs once',
    status: 'passed',
    durationMs: 3,
    checks: [
      { name: 'executions', passed: true, message: 'as expected' },
      { name: 'invariant-15-secrets-never-leave', passed: true, message: 'holds' },
    ],
  };
  const base: RunResults = { ...fixed, cases: [...fixed.cases, checked], summary: summarize([...fixed.cases, checked]) };
  const names = (results: RunResults) => JSON.stringify(results.cases.map((c) => [c.id, c.kind, c.status, c.checks.map((k) => k.name)]));
  const rendered = (results: RunResults) => REPORT_FORMATS.map(([, render]) => render(results)).join('\n');
  const garbled = (secret: string): string | undefined => {
    const results = redactDeep(base, createRedactor({ secrets: [secret], patterns: [] })) as RunResults;
    const refused = reportsRefused(results);
    if (refused !== undefined) return `the reports do not read back: ${refused.split('\n')[0]}`;
    if (names(results) !== names(base)) return "a case's id, kind or status, or a check's name, no longer reads as the gate wrote it";
    return secretFinder(secret)(rendered(results)) ? 'the reports still hold it' : undefined;
  };
  const checks: CheckResult[] = [];
  for (const word of words) {
    const refused = secretsGarblingTheReports([word]).length === 1;
    const why = garbled(word);
    checks.push({
      name: `"${word}" garbles the reports and is refused`,
      passed: refused && why !== undefined,
      message: `${refused ? 'refused' : 'accepted'}; redacted out of the results: ${why ?? 'the reports read back whole'}`,
      expected: 'refused; the reports garbled',
      actual: `${refused ? 'refused' : 'accepted'}; ${why ?? 'not garbled'}`,
    });
  }
  for (const credential of credentials) {
    const refused = secretsGarblingTheReports([credential]).length === 1;
    const why = garbled(credential);
    checks.push({
      name: `a credential of ${credential.length} characters is accepted and garbles nothing`,
      passed: !refused && why === undefined,
      message: `${refused ? 'refused' : 'accepted'}; ${why ?? 'the reports read back whole'}`,
      expected: 'accepted; not garbled',
      actual: `${refused ? 'refused' : 'accepted'}; ${why ?? 'not garbled'}`,
    });
  }
  const mixed = secretsGarblingTheReports(['sk_live_51HqExampleKey9', 7, 'passed', 'ab', 'scenario']);
  checks.push({
    name: 'among several, the indexes of the refused ones',
    passed: JSON.stringify(mixed) === '[2,4]',
    message: JSON.stringify(mixed),
    expected: '[2,4]',
    actual: JSON.stringify(mixed),
  });
  return checks;
}

/**
 * The reports never write a credential of the environment the run ran in: a CI job's `…_API_KEY` a team's tool
 * quoted into a failing check and into what the model saw. The writer redacts the results with the environment's
 * secrets (`secretsFromEnv`) before any format renders them — the only layer that knows them, since the case's own
 * redactor knows the scenario's secrets, not the job's. Here the reports are written as `loopgate run` writes them,
 * with such a variable set, and every file and the console text is read back (outside probe 63, F6: with that
 * redaction removed, results.json and report.html held the key, and run, fuzz and the bundled suite stayed green).
 */
async function environmentCredentialsNeverWritten(): Promise<CheckResult[]> {
  const name = 'LOOPGATE_REPORT_SELF_TEST_API_KEY';
  const key = 'envkey-Zr8Tq3Wm5Np2Lx7VbQ4c';
  const base = fixture();
  const quoted = (text: string) => `${text} (the deploy tool printed ${key})`;
  const results: RunResults = {
    ...base,
    cases: base.cases.map((c, i) =>
      i === 0
        ? {
            ...c,
            failure: quoted(c.failure ?? ''),
            checks: c.checks.map((k) => ({ ...k, message: quoted(k.message ?? '') })),
            requests: (c.requests ?? []).map((r) => ({ ...r, lines: [...r.lines, `user: result#d1 ok: {"token":"${key}"}`] })),
          }
        : c,
    ),
  };
  const dir = mkdtempSync(join(tmpdir(), 'loopgate-report-env-'));
  try {
    const before = process.env[name];
    process.env[name] = key;
    // The writer reads the environment as it is called (before its first await): set only that long.
    let written: ReturnType<typeof writeReports>;
    try {
      written = writeReports(results, { reporters: [...REPORTERS], outDir: dir, console: { color: false, width: 200 } });
    } finally {
      if (before === undefined) delete process.env[name];
      else process.env[name] = before;
    }
    const { console: text, files } = await written;
    const places: [string, string][] = [
      ['the console', text ?? ''],
      ...Object.entries(files).map(([reporter, path]): [string, string] => [
        `${reporter} (${REPORT_FILES[reporter as FileReporter]})`,
        readFileSync(path!, 'utf8'),
      ]),
    ];
    const holding = places.filter(([, body]) => body.includes(key) || body.includes(key.slice(0, 14)) || body.includes(key.slice(-14))).map(([where]) => where);
    return [
      {
        name: 'every report was written',
        passed: places.length === REPORTERS.length,
        message: `${places.length} of ${REPORTERS.length}: ${places.map(([where]) => where).join(', ')}`,
      },
      {
        name: `no report holds ${name}'s value, or half of it`,
        passed: holding.length === 0,
        message: holding.length === 0 ? 'none' : `held by ${holding.join(', ')}`,
        expected: 'none',
        actual: holding.length === 0 ? 'none' : holding.join(', '),
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A run that checked nothing — every case skipped — exits 1, and every report must say it did not pass (outside
 * probe 42, F4: summary.md read ✅, the HTML page "passed", the console "PASSED: 0 of 11", and merge-reports of two
 * such shards exited 0, so the shipped sharded workflow went green having checked nothing). Read by hand, and through
 * the writer's verification; and as two shards merged.
 */
function nothingCheckedIsNoPass(): CheckResult[] {
  const skipped = fixture().cases.map((c): CaseResult => ({ ...c, status: 'skipped', skipReason: 'the loop lacks a capability', checks: [] }));
  delete (skipped[0] as { failure?: string }).failure;
  const results: RunResults = { ...fixture(), summary: summarize(skipped), cases: skipped.map(({ failure: _f, ...c }) => c) };
  const headline = renderMarkdown(results).split('\n')[0] ?? '';
  const title = /<title>([^<]*)<\/title>/.exec(renderHtml(results))?.[1] ?? '(no title)';
  const verdict = renderConsole(results, { color: false, width: 400 }).trimEnd().split('\n').at(-1) ?? '';
  // A CI test view reads junit.xml's failures (review of stop 51: failures="0", every case skipped, read green).
  const junit = renderJunit(results);
  const root = /<testsuites [^>]*>/.exec(junit)?.[0] ?? '(no testsuites)';
  const told = /<testcase [^>]*name="nothing was checked"[^>]*>\s*<failure /.test(junit);
  const refused = reportsRefused(results);
  const half = Math.ceil(results.cases.length / 2);
  const shard = (cases: readonly CaseResult[], index: number): RunResults => ({ ...results, cases, summary: summarize(cases), shard: { index, total: 2 } });
  const merged = mergeResults([
    { source: 'shard-1/results.json', results: shard(results.cases.slice(0, half), 1) },
    { source: 'shard-2/results.json', results: shard(results.cases.slice(half), 2) },
  ]);
  return [
    { name: 'the run did not pass (runPassed, the exit code of merge-reports)', passed: !runPassed(results), message: String(runPassed(results)) },
    {
      name: "summary.md's headline marks it ❌ and says nothing was checked",
      passed: headline.startsWith('## ❌ ') && headline.includes('nothing was checked'),
      message: headline,
    },
    { name: "report.html's title says FAILED: nothing was checked", passed: /FAILED \(nothing was checked/.test(title), message: title },
    { name: "the console's verdict line says FAILED: nothing was checked", passed: verdict.startsWith('FAILED: nothing was checked'), message: verdict },
    {
      name: 'junit.xml counts a failure, a testcase "nothing was checked"',
      passed: root.includes(' failures="1"') && told,
      message: `${root}; testcase ${told ? 'present' : 'absent'}`,
    },
    { name: "the writer's verification accepts every report of it", passed: refused === undefined, message: refused ?? 'accepted' },
    {
      name: 'two such shards merged did not pass',
      passed: merged.summary.total === results.cases.length && !runPassed(merged),
      message: `${merged.summary.total} cases, passed ${runPassed(merged)}`,
    },
  ];
}

/**
 * Shards run side by side: their merge took from the first shard's start to the last one's finish, whatever order the
 * files are given in (plant probe of stop 52: the finishes sorted the wrong way round gave the earliest finish, a
 * duration too short in every report, and no case of the gate merged shards of different times).
 */
function mergedShardsSpanTheRun(): CheckResult[] {
  const results = fixture();
  const half = Math.ceil(results.cases.length / 2);
  const shard = (cases: readonly CaseResult[], index: number, startedAt: string, finishedAt: string): RunResults => ({
    ...results,
    cases,
    summary: summarize(cases),
    shard: { index, total: 2 },
    startedAt,
    finishedAt,
    durationMs: Date.parse(finishedAt) - Date.parse(startedAt),
  });
  const one = shard(results.cases.slice(0, half), 1, '2026-06-01T10:00:01.000Z', '2026-06-01T10:00:04.000Z');
  const two = shard(results.cases.slice(half), 2, '2026-06-01T10:00:00.500Z', '2026-06-01T10:00:03.000Z');
  const want = { startedAt: '2026-06-01T10:00:00.500Z', finishedAt: '2026-06-01T10:00:04.000Z', durationMs: 3500 };
  return [
    [one, two],
    [two, one],
  ].map(([a, b], i) => {
    const merged = mergeResults([
      { source: `shard-${a!.shard!.index}/results.json`, results: a! },
      { source: `shard-${b!.shard!.index}/results.json`, results: b! },
    ]);
    const got = { startedAt: merged.startedAt, finishedAt: merged.finishedAt, durationMs: merged.durationMs };
    return {
      name: `merged ${i === 0 ? 'in shard order' : 'in reverse order'}: from the first start to the last finish`,
      passed: JSON.stringify(got) === JSON.stringify(want),
      message: JSON.stringify(got),
      expected: JSON.stringify(want),
      actual: JSON.stringify(got),
    };
  });
}

/**
 * Pinned verdicts catch every change in what a peer's case did, not only a change of status (outside probe 45, P05:
 * a comparison that looked at the status alone passed every run, the plant unseen): a failing check that now says
 * something else, a persisted history line, the outcome, the skip reason, a case gone from a whole run; and a run
 * that did exactly as pinned has no difference.
 */
function pinnedVerdictsCatchEveryChange(): CheckResult[] {
  const check = (name: string, passed: boolean, message: string): CheckResult => ({ name, passed, message });
  const base = (id: string, status: CaseResult['status'], checks: CheckResult[], extra: Partial<CaseResult> = {}): CaseResult => ({
    id,
    kind: 'scenario',
    title: id,
    status,
    durationMs: 1,
    checks,
    ...extra,
  });
  const pinnedRun = [
    base('scenario:refund', 'failed', [check('executions', false, 'issue_refund: expected 1, got 2'), check('persisted 000', true, 'user: Refund ORD-1.')], {
      outcome: 'replied',
    }),
    base('scenario:lookup', 'passed', [check('persisted 000', true, 'user: Where is ORD-1?')], { outcome: 'replied' }),
    base('scenario:steer', 'skipped', [], { skipReason: 'team-loop has no steer' }),
  ];
  const pinned = verdictsOf('team-loop', 'team-loop 1.0.0', 1, pinnedRun);
  const changed = (i: number, c: CaseResult) => pinnedRun.map((p, j) => (j === i ? c : p));
  const rows: readonly [string, readonly CaseResult[], boolean, string][] = [
    ['the same run', pinnedRun, true, ''],
    [
      'a failing check that says something else',
      changed(0, { ...pinnedRun[0]!, checks: [check('executions', false, 'issue_refund: expected 1, got 3'), pinnedRun[0]!.checks[1]!] }),
      true,
      'scenario:refund judged differently',
    ],
    [
      'a persisted history line that changed',
      changed(1, { ...pinnedRun[1]!, checks: [check('persisted 000', true, 'user: Where is ORD-2?')] }),
      true,
      'scenario:lookup judged differently',
    ],
    ['another outcome', changed(1, { ...pinnedRun[1]!, outcome: 'failed{max_steps}' }), true, 'scenario:lookup judged differently'],
    ['another skip reason', changed(2, { ...pinnedRun[2]!, skipReason: 'team-loop has no inject' }), true, 'scenario:steer judged differently'],
    ['a passing case that now fails', changed(1, { ...pinnedRun[1]!, status: 'failed' }), true, 'scenario:lookup newly fails'],
    ['a pinned case gone from a whole run', pinnedRun.slice(0, 2), true, 'scenario:steer not run'],
    ['a pinned case not selected by a part of the run', pinnedRun.slice(0, 2), false, ''],
  ];
  return rows.map(([name, run, whole, want]) => {
    const got = compareVerdicts(pinned, run, whole)
      .map((d) => `${d.id} ${d.kind}`)
      .join('; ');
    return { name: `${name}: ${want || 'no difference'}`, passed: got === want, message: got || 'no difference', expected: want, actual: got };
  });
}

export function reportCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:report/nothing-checked-is-no-pass',
        title: 'report: a run whose every case was skipped is marked failed — nothing was checked — in every report and when its shards are merged',
        file: 'src/harness/report-cases.ts',
      },
      nothingCheckedIsNoPass,
    ),
    checksCase(
      {
        id: 'contract:report/merged-shards-span-the-run',
        title: 'report: shards run side by side merge into one run from the first start to the last finish, in either order given',
        file: 'src/harness/report-cases.ts',
      },
      mergedShardsSpanTheRun,
    ),
    checksCase(
      {
        id: 'contract:report/secret-pieces-never-reported',
        title: "report: a failing case's title, messages, expected and actual values carry no piece of half a secret of the case or more",
        file: 'src/harness/report-cases.ts',
      },
      secretPiecesNeverReported,
    ),
    checksCase(
      {
        id: 'contract:report/secrets-garbling-the-reports-refused',
        title: "report: a secret the reports' own words hold (a status, a case id's kind, a JUnit tag, a check's name) is refused, and a credential is not",
        file: 'src/harness/report-cases.ts',
      },
      secretsGarblingTheReportsRefused,
    ),
    checksCase(
      {
        id: 'contract:report/environment-credentials-never-written',
        title: "report: a CI job's credential a tool quoted is in no report written (results.json, JUnit, summary, HTML, console)",
        file: 'src/harness/report-cases.ts',
      },
      environmentCredentialsNeverWritten,
    ),
    checksCase(
      {
        id: 'contract:report/junit-failure-tells-why-the-case-failed',
        title: "report: a failing case's JUnit failure names each failing check, its expected and actual, and what the model saw",
        file: 'src/harness/report-cases.ts',
      },
      junitFailureTellsWhy,
    ),
    checksCase(
      {
        id: 'contract:report/uncounted-tokens-leave-the-cost-unknown',
        title: 'report: a call with a token count ≥ 2^53 − 1 has an unknown cost, named in every report, never a price of 2^53 − 1 tokens',
        file: 'src/harness/report-cases.ts',
      },
      uncountedTokensLeaveTheCostUnknown,
    ),
    checksCase(
      {
        id: 'contract:report/baseline-reports-every-regression',
        title: 'report: --baseline reports a status, steps, tokens (input or output) and cost regression and a missing case, with their numbers',
        file: 'src/harness/report-cases.ts',
      },
      baselineReportsEveryRegression,
    ),
    checksCase(
      {
        id: 'contract:report/pinned-verdicts-catch-every-change',
        title:
          'report: pinned verdicts catch a changed failing check, history line, outcome, skip reason, status and a case gone; the same run has no difference',
        file: 'src/harness/report-cases.ts',
      },
      pinnedVerdictsCatchEveryChange,
    ),
    checksCase(
      {
        id: 'contract:report/html-report-escapes-markup-in-the-run',
        title: 'report: a run whose text holds </script><script> gets its report.html written, the markup escaped in the embedded results',
        file: 'src/harness/report-cases.ts',
      },
      htmlReportEscapesMarkup,
    ),
  ];
}
