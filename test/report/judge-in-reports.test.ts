/**
 * The judge's reason reaches every report, for a passing rubric as for a
 * failing one: console, results.json (check.judge), JUnit (testcase
 * properties) and Markdown. (The HTML report: judge-and-cost-in-html.browser.test.ts.)
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/commands/run.ts';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { readResultsFile } from '../../src/report/json.ts';
import { BUNDLED_ROOT } from '../support/bundled.ts';

const dir = mkdtempSync(join(tmpdir(), 'loopgate-judge-reports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the judge's reason in every report", () => {
  it('lists each verdict with its reason, failed ones first', async () => {
    mkdirSync(join(dir, 'replies'));
    const source = join(BUNDLED_ROOT, 'replies/reply-graded-by-a-scripted-judge.yaml');
    cpSync(source, join(dir, 'replies/good.yaml'));
    writeFileSync(
      join(dir, 'replies/bad.yaml'),
      readFileSync(source, 'utf8')
        .replace('- pass: true', '- pass: false')
        .replace(/reason: It apologizes[^\n]*/, 'reason: It never says sorry.'),
    );
    writeFileSync(join(dir, 'loopgate.config.ts'), `export { default } from ${JSON.stringify(join(BUNDLED_ROOT, 'loopgate.config.ts'))};\n`);
    const out = join(dir, 'out');
    const lines: string[] = [];
    const code = await run(
      {
        paths: [join(dir, 'replies')],
        config: join(dir, 'loopgate.config.ts'),
        reporter: ['console', 'json', 'junit', 'markdown'],
        out,
        seed: 1,
        repeat: 1,
        host: 'loop',
      },
      { out: (t) => lines.push(t), err: () => {}, tty: false },
    );
    expect(code).toBe(EXIT.failed);

    const console = lines.join('');
    expect(console).toContain('judged by a model (2):');
    expect(console).toContain('✗ scenario:replies/bad [assert[0] rubric] — judge scripted: It never says sorry.');
    expect(console).toContain(
      '✓ scenario:replies/good [assert[0] rubric] — judge scripted: It apologizes for the broken kettle and states the refund of 120.00.',
    );
    expect(console.indexOf('scenario:replies/bad [assert')).toBeLessThan(console.indexOf('scenario:replies/good [assert'));

    const results = await readResultsFile(join(out, 'results.json'));
    const good = results.cases.find((c) => c.id === 'scenario:replies/good')!;
    expect(good.checks.find((c) => c.judge)?.judge).toEqual({
      judge: 'scripted',
      rubric: 'The reply apologizes for the broken item and states the amount refunded.',
      pass: true,
      reason: 'It apologizes for the broken kettle and states the refund of 120.00.',
    });

    const junit = readFileSync(join(out, 'junit.xml'), 'utf8');
    expect(junit).toContain(
      '<property name="judge.assert[0] rubric" value="pass (judge scripted): It apologizes for the broken kettle and states the refund of 120.00."/>',
    );
    expect(junit).toContain('<property name="judge.assert[0] rubric" value="fail (judge scripted): It never says sorry."/>');

    const markdown = readFileSync(join(out, 'summary.md'), 'utf8');
    expect(markdown).toContain('<details open><summary>Judged by a model (2)</summary>');
    expect(markdown).toContain('| scenario:replies/bad | assert\\[0\\] rubric | scripted | ❌ fail | It never says sorry. |');
    expect(markdown).toContain(
      '| scenario:replies/good | assert\\[0\\] rubric | scripted | ✅ pass | It apologizes for the broken kettle and states the refund of 120.00. |',
    );
  });
});
