/**
 * Every report is read back before it is written, and must tell the run's own
 * verdict: CI reads the JUnit file and the results JSON, people read the HTML
 * and the Markdown, and a renderer that drops a failure makes a failing gate
 * look green there while the exit code says 1. The truth is tallied here from
 * the cases and regressions themselves, not from `summary` (which is checked
 * against the tally too: the exit code is decided from it).
 *
 * What is checked, per format:
 * - summary:  total, passed, failed, skipped (all and per kind) as tallied.
 * - json:     parses and validates as a results file; same summary, regressions,
 *             and each case's id, kind and status.
 * - junit:    well-formed XML; the root's tests / failures / skipped; one testcase
 *             per case (and per regression) named by its id, with a failure
 *             element exactly where the case failed and a skipped one where skipped;
 *             each failure telling why: a summary message, the type naming a
 *             failing check, and in its text each failing check's name and
 *             message, its expected and actual values, and what the model saw
 *             at the failing step (a CI view shows nothing else of the case).
 * - html:     the title tells the run's verdict and counts (FAILED with its failed
 *             cases and regressions, or passed with its total); the embedded
 *             results end where the script element ends (nothing in them can
 *             close it or open a comment), parse, and hold each case's id and status.
 * - markdown: the headline's mark and counts.
 * - console:  its verdict line: FAILED with the failed count and the regressions
 *             when the cases failed or regressed, else PASSED with its counts.
 */
import { failingChecks, failingRequest, failureText, showValue } from './format.ts';
import { parseResultsJson } from './json.ts';
import { junitText } from './junit.ts';
import { parseXml, type XmlElement } from './read-xml.ts';
import type { FileReporter } from './reporters.ts';
import { runPassed, type CaseKind, type CaseResult, type CaseStatus, type RunResults } from './results.ts';

/** A report that would tell another verdict than the run's: a loopgate bug, never the user's. */
export class ReportDisagreesError extends Error {
  readonly reporter: FileReporter | 'console' | 'summary';
  constructor(reporter: FileReporter | 'console' | 'summary', problems: readonly string[]) {
    const shown = problems.slice(0, 5).join('; ') + (problems.length > 5 ? `; and ${problems.length - 5} more` : '');
    super(`the ${reporter} report disagrees with the run, so it was not written (a loopgate bug; please report it): ${shown}`);
    this.name = 'ReportDisagreesError';
    this.reporter = reporter;
  }
}

interface Counts {
  total: number;
  passed: number;
  failed: number;
  skipped: number;
}

interface Truth {
  readonly all: Counts;
  readonly byKind: Record<CaseKind, Counts>;
  /** Each case as `kind id → status`, sorted (ids may repeat across merged shards). */
  readonly cases: readonly CaseLine[];
  readonly regressions: number;
  /** The run passed, as its exit code says (`runPassed`: a peer loop failing exactly as pinned passes). */
  readonly passed: boolean;
  /** A peer loop judged against its pinned verdicts: the file, and how many cases differ from it. */
  readonly pinned?: { readonly file: string; readonly differences: number };
  /** What each failed case's JUnit failure must tell, by `kind id` as JUnit shows the id (several for ids repeated across shards). */
  readonly failures: ReadonlyMap<string, readonly FailureTold[]>;
}

/** What a failed case's JUnit `<failure>` must hold: the types it may have, and the texts its body must contain. */
interface FailureTold {
  readonly types: readonly string[];
  readonly texts: readonly string[];
}

interface CaseLine {
  readonly kind: string;
  readonly id: string;
  readonly status: string;
}

const zero = (): Counts => ({ total: 0, passed: 0, failed: 0, skipped: 0 });

function tally(results: RunResults): Truth {
  const all = zero();
  const byKind: Record<CaseKind, Counts> = { table: zero(), contract: zero(), scenario: zero(), fuzz: zero() };
  for (const c of results.cases) {
    for (const bucket of [all, byKind[c.kind]]) {
      bucket.total += 1;
      bucket[c.status] += 1;
    }
  }
  const cases = results.cases.map((c) => ({ kind: c.kind, id: c.id, status: c.status }));
  const failures = new Map<string, FailureTold[]>();
  for (const c of results.cases) {
    if (c.status !== 'failed') continue;
    const key = `${c.kind}\u0000${junitText(c.id)}`;
    failures.set(key, [...(failures.get(key) ?? []), failureTold(c)]);
  }
  const pinned = results.verdicts ? { pinned: { file: results.verdicts.file, differences: results.verdicts.differences.length } } : {};
  return { all, byKind, cases: sortLines(cases), regressions: results.regressions?.length ?? 0, passed: runPassed(results), failures, ...pinned };
}

/** Each failing check by name and message, with its expected and actual values; else the case's failure text; and the failing request. */
function failureTold(c: CaseResult): FailureTold {
  const failing = failingChecks(c);
  const texts: string[] = [];
  const value = (label: string, v: unknown) => {
    const [first = '', ...rest] = showValue(v, 2).split('\n');
    texts.push(`${label} ${first}`, ...rest);
  };
  for (const check of failing) {
    texts.push(`${check.name}: ${check.message}`);
    if ('expected' in check) value('expected:', check.expected);
    if ('actual' in check) value('actual:', check.actual);
  }
  if (failing.length === 0) texts.push(failureText(c));
  const request = failingRequest(c);
  if (request) texts.push('what the model saw at the failing step', ...request.lines);
  return { types: failing.length > 0 ? failing.map((check) => junitText(check.name)) : ['failure'], texts: texts.map((t) => spaced(junitText(t))) };
}

/** Runs of spaces and tabs as one space, ends trimmed: how a value is indented is the renderer's choice. */
const spaced = (text: string) => text.replace(/[ \t]+/g, ' ').trim();

/** Why `failure` does not tell what `told` says must be told; undefined when it does. */
function untold(failure: XmlElement, told: FailureTold): string | undefined {
  if (!failure.attributes.message?.trim()) return 'its message is empty';
  const type = failure.attributes.type ?? '';
  if (!told.types.includes(type)) return `its type is "${type}", not a failing check's name (${told.types.join(', ')})`;
  const body = spaced(failure.text);
  const missing = told.texts.find((text) => !body.includes(text));
  return missing === undefined ? undefined : `its text lacks "${missing.length > 120 ? `${missing.slice(0, 120)}…` : missing}"`;
}

function compareCounts(where: string, shown: Partial<Counts> | undefined, truth: Counts, problems: string[]): void {
  for (const key of ['total', 'passed', 'failed', 'skipped'] as const) {
    const value = shown?.[key];
    if (value !== truth[key]) problems.push(`${where}.${key} is ${String(value)}, the cases say ${truth[key]}`);
  }
}

function checkSummary(results: RunResults, truth: Truth): string[] {
  const problems: string[] = [];
  compareCounts('summary', results.summary, truth.all, problems);
  for (const kind of Object.keys(truth.byKind) as CaseKind[])
    compareCounts(`summary.byKind.${kind}`, results.summary.byKind[kind], truth.byKind[kind], problems);
  return problems;
}

const lineText = (c: CaseLine) => `${c.kind} ${c.id}: ${c.status}`;
const lineKey = (c: CaseLine) => `${c.kind}\u0000${c.id}\u0000${c.status}`;
const sortLines = (lines: readonly CaseLine[]) => [...lines].sort((a, b) => (lineKey(a) < lineKey(b) ? -1 : lineKey(a) > lineKey(b) ? 1 : 0));

/** `shown` against the run's cases, ids as `show` renders them (the identity for JSON). */
function checkCases(
  where: string,
  shown: readonly { kind?: unknown; id?: unknown; status?: unknown }[],
  truth: Truth,
  problems: string[],
  show: (id: string) => string = (id) => id,
): void {
  if (shown.length !== truth.cases.length) problems.push(`${where} hold ${shown.length} cases, the run has ${truth.cases.length}`);
  const left = new Map<string, number>();
  for (const c of truth.cases) {
    const key = lineKey({ ...c, id: show(c.id) });
    left.set(key, (left.get(key) ?? 0) + 1);
  }
  for (const c of sortLines(shown.map((x) => ({ kind: String(x.kind), id: String(x.id), status: String(x.status) })))) {
    const key = lineKey(c);
    const n = left.get(key) ?? 0;
    if (n > 0) left.set(key, n - 1);
    else problems.push(`${where} show ${lineText(c)}, which the run does not have`);
  }
  for (const c of truth.cases) {
    const key = lineKey({ ...c, id: show(c.id) });
    const n = left.get(key) ?? 0;
    if (n > 0) {
      left.set(key, n - 1);
      problems.push(`${where} lack ${lineText(c)}`);
    }
  }
}

function checkJson(text: string, truth: Truth): string[] {
  const problems: string[] = [];
  let read: RunResults;
  try {
    read = parseResultsJson(text, 'results.json');
  } catch (error) {
    return [`it does not read back: ${(error as Error).message}`];
  }
  compareCounts('summary', read.summary, truth.all, problems);
  for (const kind of Object.keys(truth.byKind) as CaseKind[]) compareCounts(`summary.byKind.${kind}`, read.summary.byKind[kind], truth.byKind[kind], problems);
  if ((read.regressions?.length ?? 0) !== truth.regressions)
    problems.push(`it lists ${read.regressions?.length ?? 0} regressions, the run has ${truth.regressions}`);
  checkCases('the cases', read.cases, truth, problems);
  return problems;
}

const number = (element: XmlElement, name: string): number | undefined => {
  const raw = element.attributes[name];
  return raw === undefined || !/^\d+$/.test(raw) ? undefined : Number(raw);
};

function checkJunit(text: string, truth: Truth): string[] {
  const problems: string[] = [];
  let root: XmlElement;
  try {
    root = parseXml(text);
  } catch (error) {
    return [`it is not well-formed XML: ${(error as Error).message}`];
  }
  if (root.name !== 'testsuites') return [`its root element is <${root.name}>, not <testsuites>`];
  const expect = (what: string, shown: number | undefined, wanted: number) => {
    if (shown !== wanted) problems.push(`${what} is ${String(shown)}, the run has ${wanted}`);
  };
  const nothing = truth.all.passed + truth.all.failed === 0 ? 1 : 0;
  expect('testsuites tests', number(root, 'tests'), truth.all.total + truth.regressions + nothing);
  expect('testsuites failures', number(root, 'failures'), truth.all.failed + truth.regressions + nothing);
  expect('testsuites skipped', number(root, 'skipped'), truth.all.skipped);
  const cases: { kind: string; id: string; status: CaseStatus }[] = [];
  const failuresLeft = new Map([...truth.failures].map(([key, told]) => [key, [...told]]));
  let regressions = 0;
  let told = 0;
  for (const suite of root.children.filter((e) => e.name === 'testsuite')) {
    for (const test of suite.children.filter((e) => e.name === 'testcase')) {
      const failed = test.children.some((e) => e.name === 'failure' || e.name === 'error');
      const skipped = test.children.some((e) => e.name === 'skipped');
      if (test.attributes.classname === 'loopgate' && test.attributes.name === 'nothing was checked') {
        told += 1;
        if (!failed) problems.push('its testcase "nothing was checked" has no failure element');
        continue;
      }
      if (test.attributes.classname === 'baseline') {
        regressions += 1;
        if (!failed) problems.push(`regression ${test.attributes.name ?? '?'} has no failure element`);
        continue;
      }
      cases.push({ kind: test.attributes.classname ?? '', id: test.attributes.name ?? '', status: failed ? 'failed' : skipped ? 'skipped' : 'passed' });
      const failure = test.children.find((e) => e.name === 'failure');
      const left = failure && failuresLeft.get(`${test.attributes.classname ?? ''}\u0000${test.attributes.name ?? ''}`);
      if (failure && left && left.length > 0) {
        const reasons = left.map((told) => untold(failure, told));
        const match = reasons.indexOf(undefined);
        if (match >= 0) left.splice(match, 1);
        else problems.push(`the failure of ${test.attributes.classname} ${test.attributes.name} does not tell why the case failed: ${reasons[0]}`);
      }
    }
  }
  expect('baseline testcases', regressions, truth.regressions);
  expect('"nothing was checked" testcases', told, nothing);
  checkCases('the testcases', cases, truth, problems, junitText);
  return problems;
}

const RESULTS_SCRIPT = '<script type="application/json" id="loopgate-results">';

/** The verdict in the page's title: the tab a reader sees before the page draws (html.ts). */
function checkHtmlTitle(text: string, truth: Truth): string[] {
  const title = /<title>loopgate report — ([^<]*)<\/title>/.exec(text)?.[1];
  if (title === undefined) return ['its title tells no verdict'];
  const failedAsPinned = truth.passed && truth.all.failed > 0;
  const want =
    truth.all.passed + truth.all.failed === 0
      ? `FAILED (nothing was checked: ${truth.all.skipped} skipped)`
      : !truth.passed
        ? `FAILED (${truth.all.failed} failed${truth.regressions ? `, ${truth.regressions} regressions` : ''} of ${truth.all.total})`
        : failedAsPinned
          ? `failed as pinned (${truth.all.failed} failed of ${truth.all.total})`
          : `passed (${truth.all.total})`;
  return title === want ? [] : [`its title says "${title}", the run is "${want}"`];
}

function checkHtml(text: string, truth: Truth): string[] {
  const titled = checkHtmlTitle(text, truth);
  if (titled.length > 0) return titled;
  const start = text.indexOf(RESULTS_SCRIPT);
  if (start < 0) return ['it holds no embedded results'];
  const from = start + RESULTS_SCRIPT.length;
  // Where a browser ends the element: the first `</script` in any case.
  const end = text.toLowerCase().indexOf('</script', from);
  if (end < 0) return ['its results script element is never closed'];
  const body = text.slice(from, end);
  if (body.includes('<!--')) return ['the embedded results open an HTML comment, which changes where the script element ends'];
  let data: { cases?: unknown };
  try {
    data = JSON.parse(body) as { cases?: unknown };
  } catch (error) {
    return [`the embedded results do not parse where the script element ends (${(error as Error).message})`];
  }
  const problems: string[] = [];
  if (!Array.isArray(data.cases)) return ['the embedded results hold no cases'];
  checkCases('the embedded results', data.cases as { kind?: unknown; id?: unknown; status?: unknown }[], truth, problems);
  return problems;
}

function checkMarkdown(text: string, truth: Truth): string[] {
  const headline = text.split('\n').find((line) => line.startsWith('## '));
  if (!headline) return ['it has no headline'];
  const ok = truth.passed;
  const problems: string[] = [];
  if (!headline.includes(ok ? '✅' : '❌')) problems.push(`its headline "${headline}" shows the wrong mark: the run ${ok ? 'passed' : 'failed'}`);
  const count = (what: string) => Number(new RegExp(`(\\d+) ${what}`).exec(headline)?.[1] ?? 0);
  const shown = { passed: count('passed'), failed: count('failed'), skipped: count('skipped') };
  for (const key of ['passed', 'failed', 'skipped'] as const) {
    if (shown[key] !== truth.all[key]) problems.push(`its headline says ${shown[key]} ${key}, the run has ${truth.all[key]}`);
  }
  if (count('regressions?') !== truth.regressions) problems.push(`its headline says ${count('regressions?')} regressions, the run has ${truth.regressions}`);
  return problems;
}

/** The console's last line: the verdict a CI log shows (its colours stripped). */
function checkConsole(text: string, truth: Truth): string[] {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's colour codes
  const lines = text
    .replace(/\u001b\[[0-9;]*m/g, '')
    .trimEnd()
    .split('\n');
  const verdict = lines[lines.length - 1] ?? '';
  const { failed, passed, total, skipped } = truth.all;
  const regressions = truth.regressions;
  const { pinned } = truth;
  const differs = pinned?.differences ?? 0;
  const problems = [
    passed + failed === 0 ? `nothing was checked (${skipped} skipped)` : '',
    pinned ? '' : failed > 0 ? `${failed} failed` : '',
    differs > 0 ? `${differs} difference${differs === 1 ? '' : 's'} from the pinned verdicts in ${pinned!.file}` : '',
    regressions > 0 ? `${regressions} regression${regressions === 1 ? '' : 's'}` : '',
  ].filter(Boolean);
  const skips = skipped > 0 ? ` (${skipped} skipped)` : '';
  const want =
    problems.length > 0
      ? `FAILED: ${problems.join(', ')}`
      : pinned
        ? `PASSED as pinned: ${passed} passed, ${failed} failed as documented in ${pinned.file}${skips}`
        : `PASSED: ${passed} of ${total}${skips}`;
  return verdict === want ? [] : [`its verdict line is "${verdict}"; the run's is "${want}"`];
}

const CHECKS: Readonly<Record<FileReporter | 'console', (text: string, truth: Truth) => string[]>> = {
  json: checkJson,
  junit: checkJunit,
  html: checkHtml,
  markdown: checkMarkdown,
  console: checkConsole,
};

/**
 * Throws `ReportDisagreesError` when the summary, or a rendered report, tells
 * another verdict than the cases. `rendered`: the text of each file report.
 */
export function verifyReports(results: RunResults, rendered: Readonly<Partial<Record<FileReporter | 'console', string>>>): void {
  const truth = tally(results);
  const summary = checkSummary(results, truth);
  if (summary.length > 0) throw new ReportDisagreesError('summary', summary);
  for (const [reporter, text] of Object.entries(rendered) as [FileReporter | 'console', string][]) {
    const problems = CHECKS[reporter](text, truth);
    if (problems.length > 0) throw new ReportDisagreesError(reporter, problems);
  }
}
