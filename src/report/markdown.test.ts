import { describe, expect, it } from 'vitest';
import { sampleCases, sampleResults } from '../../test/report/sample-results.ts';
import { codeBlock, mdInline, renderMarkdown } from './markdown.ts';
import type { CaseResult } from './results.ts';

describe('Markdown summary', () => {
  const md = renderMarkdown(sampleResults());

  it('opens with the verdict and counts', () => {
    expect(md.split('\n')[0]).toBe('## ❌ loopgate: 5 passed, 2 failed, 1 skipped');
    const passing = sampleCases().filter((c) => c.status === 'passed');
    expect(renderMarkdown(sampleResults(passing)).split('\n')[0]).toBe('## ✅ loopgate: 5 passed');
  });

  it('totals by kind, only kinds present', () => {
    expect(md).toContain('| table | 1 | **1** | 0 | 2 |');
    expect(md).toContain('| scenario | 1 | **1** | 1 | 3 |');
    expect(md).toContain('| **all** | **5** | **2** | **1** | **8** |');
    const onlyContract = sampleCases().filter((c) => c.kind === 'contract');
    expect(renderMarkdown(sampleResults(onlyContract))).not.toContain('| table |');
  });

  it('lists failures with outcome and the first failing check, failures only', () => {
    expect(md).toContain('| table:cancel@TOOL\\_RUNNING | cancelled{user} | history: tool call call\\_1 has no result |');
    expect(md).toContain(
      '| scenario:refunds/rate-limited-then-timeout | failed{max\\_steps} | outcome: expected replied, got failed{max\\_steps} — order &lt;b&gt;\\#42&lt;/b&gt; said "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" \\| \\`rm -rf\\` &amp; \\\\x07bell\\\\x1b\\[31m |',
    );
    expect(md).not.toContain('approval-granted');
  });

  it('shows each failing check with expected and actual inside collapsible details', () => {
    const start = md.indexOf('<details><summary><code>table:cancel@TOOL_RUNNING</code> — cancelled{user}</summary>');
    expect(start).toBeGreaterThan(0);
    const section = md.slice(start, md.indexOf('</details>', start));
    expect(section).toContain('**✗ invariant 6: tool pairing:** tool call call\\_1 has no result in the next request');
    expect(section).toContain('expected:\n\n```\none result for call_1\n```');
    expect(section).toContain('actual:\n\n```\nnone\n```');
    expect(section).toContain('+0.100 s  T1      cancel        cancel by user');
    expect(section).not.toContain('**✗ outcome');
  });

  it('lists regressions and skipped cases with reasons', () => {
    const regressed = renderMarkdown({
      ...sampleResults(),
      regressions: [{ id: 'scenario:refunds/approval-granted', kind: 'tokens', message: 'tokens 2680 → 4000 (+49%)' }],
    });
    expect(regressed.split('\n')[0]).toBe('## ❌ loopgate: 5 passed, 2 failed, 1 skipped, 1 regression');
    expect(regressed).toContain('### Regressions against the baseline (1)');
    expect(regressed).toContain('| scenario:refunds/approval-granted | tokens | tokens 2680 → 4000 (+49%) |');
    expect(md).toContain('| scenario:live/refund-approval | live scenario: ANTHROPIC\\_API\\_KEY is not set |');
  });

  it('cannot be made to inject HTML, break a table or close a code block', () => {
    // Outside code blocks no raw tag from case data survives.
    const outsideCode = md.replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1$/gm, '');
    expect(outsideCode).not.toMatch(/<\/?(b|script)\b/);
    // Every row of a table has as many cells as its header.
    let header = 0;
    for (const line of outsideCode.split('\n')) {
      const cells = line.startsWith('|') ? line.split(/(?<!\\)\|/).length : 0;
      if (cells === 0) header = 0;
      else if (header === 0) header = cells;
      else expect(cells, line).toBe(header);
    }
    expect(md).not.toMatch(/[\u0007\u001b]/);
    const sneaky = codeBlock('a\n```\n<script>x</script>');
    expect(sneaky.startsWith('````\n')).toBe(true);
    expect(sneaky.endsWith('\n````')).toBe(true);
    expect(mdInline('[click](http://evil) *x* | y')).toBe('\\[click\\](http://evil) \\*x\\* \\| y');
  });

  it('caps long runs so the page stays within CI limits', () => {
    const many: CaseResult[] = Array.from({ length: 120 }, (_, i) => ({ ...sampleCases()[1]!, id: `table:case-${String(i).padStart(3, '0')}` }));
    const big = renderMarkdown(sampleResults(many), { maxFailures: 10 });
    expect(big.match(/^\| table:case-/gm)).toHaveLength(10);
    expect(big.match(/<details><summary><code>table:case-/g)).toHaveLength(10);
    expect(big).toContain('… and 110 more (see results.json or report.html).');
    const long = renderMarkdown(
      sampleResults([{ ...sampleCases()[1]!, checks: [{ name: 'history', passed: false, message: 'm', actual: 'x'.repeat(10_000) }] }]),
      { maxValueChars: 100 },
    );
    expect(long).toContain('… (cut at 100 characters; see results.json)');
    expect(long.length).toBeLessThan(3000);
  });
});

describe('Markdown summary of a loop judged against its pinned verdicts', () => {
  const pinned = (cases: readonly CaseResult[]) => ({
    ...sampleResults(cases),
    loop: { name: 'team', version: '1.0.0' },
    verdicts: { file: 'v.json', differences: [] },
  });

  it('says a loop that failed nothing passes as pinned, and one that failed fails as documented (outside probe 54, LOW)', () => {
    const passing = sampleCases().filter((c) => c.status !== 'failed');
    expect(renderMarkdown(pinned(passing))).toContain('team passes every case it ran, as pinned in v.json');
    expect(renderMarkdown(pinned(passing))).not.toContain('fails exactly as documented');
    expect(renderMarkdown(pinned(sampleCases()))).toContain('team fails exactly as documented: every case judged as pinned in v.json');
  });
});
