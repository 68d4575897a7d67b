/**
 * Must show (issue 15): a bundled scenario with a rubric graded by a scripted
 * judge, run through `loopgate run`'s own path, and the judge's reason in the
 * HTML report as a person sees it in headless Chromium — beside the check, for
 * a passing case too — with the case's cost. A failing verdict shows there as
 * well, highlighted. Skipped without a usable Chromium (fails under CI).
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { run } from '../../src/cli/commands/run.ts';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { describeWithChromium, findChromium } from '../support/chromium.ts';
import { BUNDLED_ROOT } from '../support/bundled.ts';

const CHROMIUM = await findChromium();
const ID = 'scenario:replies/reply-graded-by-a-scripted-judge';
const FAILING = 'scenario:replies/reply-judged-not-good-enough';

describeWithChromium('the judge of a rubric, in the HTML report', CHROMIUM, (executablePath) => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const out = mkdtempSync(join(tmpdir(), 'loopgate-judge-html-'));
    // The bundled scenario as it ships, and a copy whose scripted judge says no.
    const dir = mkdtempSync(join(tmpdir(), 'loopgate-judge-suite-'));
    mkdirSync(join(dir, 'replies'));
    const source = readFileSync(join(BUNDLED_ROOT, 'replies/reply-graded-by-a-scripted-judge.yaml'), 'utf8');
    cpSync(join(BUNDLED_ROOT, 'replies/reply-graded-by-a-scripted-judge.yaml'), join(dir, 'replies/reply-graded-by-a-scripted-judge.yaml'));
    writeFileSync(
      join(dir, 'replies/reply-judged-not-good-enough.yaml'),
      source
        .replace('- pass: true', '- pass: false')
        .replace('reason: It apologizes for the broken kettle and states the refund of 120.00.', 'reason: It never says sorry.'),
    );
    // The bundled config (agent, predicates, judges, prices) from a config file beside the copies: ids are relative to it.
    writeFileSync(join(dir, 'loopgate.config.ts'), `export { default } from ${JSON.stringify(join(BUNDLED_ROOT, 'loopgate.config.ts'))};\n`);
    const code = await run(
      { paths: [join(dir, 'replies')], config: join(dir, 'loopgate.config.ts'), reporter: ['html'], out, seed: 1, repeat: 1 },
      { out: () => {}, err: () => {}, tty: false },
    );
    expect(code).toBe(EXIT.failed); // the copy fails, the bundled one passes
    browser = await chromium.launch({ executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, offline: true })).newPage();
    await page.goto(pathToFileURL(join(out, 'report.html')).href);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 10_000 });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it("shows the judge's reason beside the passing rubric check, with the case's cost", async () => {
    const card = page.locator(`details.case[data-id="${ID}"]`);
    // A passed case is closed: a person opens it.
    await card.locator('summary').first().click();
    const judged = card.locator('li.check[data-check="assert[0] rubric"] .judge-reason');
    await expect.poll(() => judged.isVisible()).toBe(true);
    const text = await judged.innerText();
    expect(text).toContain('pass · judge scripted');
    expect(text).toContain('rubric: The reply apologizes for the broken item and states the amount refunded.');
    expect(text).toContain('reason: It apologizes for the broken kettle and states the refund of 120.00.');
    expect(await card.locator('.facts').innerText()).toMatch(/cost: \$0\.00021/);
  });

  it('shows a failing verdict open and highlighted, with its reason', async () => {
    const card = page.locator(`details.case[data-id="${FAILING}"]`);
    expect(await card.evaluate((d) => (d as unknown as { open: boolean }).open)).toBe(true);
    const check = card.locator('li.check.first-failure');
    expect(await check.getAttribute('data-check')).toBe('assert[0] rubric');
    expect(await check.locator('.judge-reason').innerText()).toContain('reason: It never says sorry.');
    expect(await check.locator('.judge-verdict.failing').innerText()).toBe('fail · judge scripted');
  });
});
