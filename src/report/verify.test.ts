import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOSTILE, sampleCases, sampleResults } from '../../test/report/sample-results.ts';
import { renderHtml } from './html.ts';
import { renderResultsJson } from './json.ts';
import { renderJunit } from './junit.ts';
import { renderMarkdown } from './markdown.ts';
import { summarize, type RunResults } from './results.ts';
import { ReportDisagreesError, verifyReports } from './verify.ts';
import { writeReports } from './write.ts';

/** Failing cases, a skip, a hostile id and title, and regressions: everything a renderer may get wrong. */
function hardResults(): RunResults {
  const cases = sampleCases().map((c, i) => (i === 1 ? { ...c, id: `table:${HOSTILE}\u202e`, title: HOSTILE } : c));
  return {
    ...sampleResults(cases),
    regressions: [
      { id: 'scenario:refunds/approval-granted', kind: 'status', message: `passed before, fails now ${HOSTILE}` },
      { id: 'scenario:gone', kind: 'missing', message: 'in the baseline, not in this run' },
    ],
  };
}

const renderAll = (r: RunResults) => ({ json: renderResultsJson(r), junit: renderJunit(r), html: renderHtml(r), markdown: renderMarkdown(r) });

const disagreement = (fn: () => void): string => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ReportDisagreesError);
    return (error as Error).message;
  }
  throw new Error('the reports were accepted');
};

describe('reports read back before they are written', () => {
  it('accepts what the renderers write, for hostile ids, failures, skips and regressions', () => {
    for (const r of [sampleResults(), hardResults(), sampleResults([])]) expect(() => verifyReports(r, renderAll(r))).not.toThrow();
  });

  it('accepts a peer run that fails exactly as pinned, and shows it passed as pinned in every report', () => {
    // `loopgate run --loop ai-sdk` with pinned verdicts: failed cases, no difference — the run passes (exit 0).
    const r: RunResults = { ...sampleResults(), verdicts: { file: 'scenarios/bundled/verdicts/ai-sdk.json', differences: [] } };
    expect(r.summary.failed).toBeGreaterThan(0);
    const all = renderAll(r);
    expect(() => verifyReports(r, all)).not.toThrow();
    expect(all.markdown).toMatch(/^## ✅ loopgate: /);
    expect(all.html).toMatch(/<title>loopgate report — failed as pinned \(\d+ failed of \d+\)<\/title>/);
    // A difference fails it, in every report.
    const differs: RunResults = {
      ...r,
      verdicts: { file: r.verdicts!.file, differences: [{ id: 'scenario:x', kind: 'newly passes', message: 'passes now' }] },
    };
    const shown = renderAll(differs);
    expect(() => verifyReports(differs, shown)).not.toThrow();
    expect(shown.markdown).toMatch(/^## ❌ loopgate: /);
    expect(shown.html).toMatch(/<title>loopgate report — FAILED/);
  });

  it('refuses a summary that is not the tally of the cases (the exit code is decided from it)', () => {
    const r = hardResults();
    const wrong = { ...r, summary: { ...r.summary, failed: 0, passed: r.summary.passed + r.summary.failed } };
    expect(disagreement(() => verifyReports(wrong, {}))).toMatch(/the summary report disagrees .*summary\.failed is 0, the cases say 2/);
  });

  it('refuses JUnit whose root leaves the regressions out of failures (probe 9 P14: CI shows green)', () => {
    const r = hardResults();
    const junit = renderJunit(r).replace(/(<testsuites[^>]*failures=")(\d+)"/, (_m, head: string, n: string) => `${head}${Number(n) - 2}"`);
    expect(disagreement(() => verifyReports(r, { junit }))).toMatch(/junit report disagrees.*testsuites failures is 2, the run has 4/);
  });

  it('refuses JUnit where a failed case shows no failure element', () => {
    const r = hardResults();
    const junit = renderJunit(r).replace(/<failure[^>]*>[^<]*<\/failure>/, '');
    expect(disagreement(() => verifyReports(r, { junit }))).toMatch(/the testcases show .*: passed, which the run does not have/);
  });

  it('refuses JUnit whose failure keeps only a summary line (outside probe 13, plant Q16: no check names, expected or actual)', () => {
    const r = hardResults();
    const summaryOnly = renderJunit(r).replace(/<failure[^>]*>([^\n<]*)[^<]*<\/failure>/, '<failure message="" type="failure">$1</failure>');
    expect(disagreement(() => verifyReports(r, { junit: summaryOnly }))).toMatch(
      /junit report disagrees.*does not tell why the case failed: its message is empty/,
    );
    const noValues = renderJunit(r).replace(/\n\s*(expected|actual): [^\n<]*/, '');
    expect(disagreement(() => verifyReports(r, { junit: noValues }))).toMatch(/does not tell why the case failed: its text lacks "(expected|actual): /);
  });

  it('refuses JUnit that is not well-formed', () => {
    const r = hardResults();
    const junit = renderJunit(r).replace('&lt;b&gt;', '<b>');
    expect(disagreement(() => verifyReports(r, { junit }))).toMatch(/not well-formed XML/);
  });

  it('refuses HTML whose embedded results a reply can end early (probe 9 P13: `<` not escaped)', () => {
    const r = hardResults();
    const html = renderHtml(r).replace(/\\u003c/g, '<');
    expect(disagreement(() => verifyReports(r, { html }))).toMatch(/html report disagrees.*do not parse where the script element ends/);
  });

  it('refuses results.json that drops a case or changes a status', () => {
    const r = hardResults();
    const dropped = JSON.parse(renderResultsJson(r)) as { cases: unknown[] };
    dropped.cases.pop();
    expect(disagreement(() => verifyReports(r, { json: JSON.stringify(dropped) }))).toMatch(/json report disagrees.*the cases hold 7 cases, the run has 8/);
    const flipped = renderResultsJson(r).replace('"status": "failed"', '"status": "passed"');
    expect(disagreement(() => verifyReports(r, { json: flipped }))).toMatch(/: passed, which the run does not have/);
  });

  it('refuses a Markdown headline with the wrong mark or counts', () => {
    const r = hardResults();
    const markdown = renderMarkdown(r).replace('❌', '✅');
    expect(disagreement(() => verifyReports(r, { markdown }))).toMatch(/markdown report disagrees.*wrong mark/);
    const counts = renderMarkdown(r).replace(', 2 regressions', '');
    expect(disagreement(() => verifyReports(r, { markdown: counts }))).toMatch(/says 0 regressions, the run has 2/);
  });

  it('writes nothing when a report disagrees', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lg-verify-'));
    const r = hardResults();
    const wrong = { ...r, summary: summarize(r.cases.slice(1)) };
    await expect(writeReports(wrong, { reporters: ['json', 'junit', 'html', 'markdown'], outDir: join(dir, 'out') })).rejects.toBeInstanceOf(
      ReportDisagreesError,
    );
    expect(readdirSync(dir)).toEqual([]);
  });
});
