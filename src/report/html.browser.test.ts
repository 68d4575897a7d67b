/**
 * The HTML report in a real headless Chromium (driven by playwright-core): it draws without console or page errors, the failed case's
 * timeline is visible, the failing assertion is highlighted with expected and
 * actual, the filters and search work, and hostile data stays text. Saves a
 * screenshot to reports/screenshots/html-report.png.
 *
 * The browser: Debian's /usr/bin/chromium when installed (.ci/run installs it),
 * else the one shipped in the @sparticuz/chromium devDependency, or
 * LOOPGATE_CHROMIUM (test/support/chromium.ts). Without a usable one these tests
 * are skipped with the reason locally and fail under CI.
 */
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithChromium, findChromium } from '../../test/support/chromium.ts';
import { HOSTILE, sampleResults } from '../../test/report/sample-results.ts';
import { writeReports } from './write.ts';

const CHROMIUM = await findChromium();
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SCREENSHOT = join(ROOT, 'reports', 'screenshots', 'html-report.png');
const FAILED_ID = 'scenario:refunds/rate-limited-then-timeout';

/** Runs in the page (the repo's TypeScript has no DOM types). */
const background = (element: unknown): string =>
  (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(element).backgroundColor;

describeWithChromium('HTML report in headless Chromium', CHROMIUM, (executablePath) => {
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'loopgate-html-'));
    const results = { ...sampleResults(), regressions: [{ id: 'scenario:refunds/approval-granted', kind: 'steps' as const, message: 'steps 3 → 5 (+67%)' }] };
    const { files } = await writeReports(results, { reporters: ['html'], outDir });
    browser = await chromium.launch({
      executablePath,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, offline: true });
    page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console.error: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('dialog', (d) => {
      problems.push(`dialog opened: ${d.message()}`);
      void d.dismiss();
    });
    page.on('request', (r) => {
      if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) problems.push(`network request: ${r.url()}`);
    });
    await page.goto(pathToFileURL(files.html!).href);
    // A script error shows up in `problems` (first test) rather than as a bare timeout here.
    await page
      .waitForSelector('body[data-ready="true"]', { timeout: 10_000 })
      .catch((e: Error) => problems.push(`page never finished drawing: ${e.message.split('\n')[0]}`));
  });

  afterAll(async () => {
    await browser?.close();
  });

  const card = () => page.locator(`details.case[data-id="${FAILED_ID}"]`);

  it('renders with no console errors, page errors or network requests', () => {
    expect(problems).toEqual([]);
  });

  it('shows failed cases first and open, with their timeline visible', async () => {
    expect(await page.locator('details.case').first().getAttribute('data-status')).toBe('failed');
    expect(await card().evaluate((d) => (d as unknown as { open: boolean }).open)).toBe(true);
    const timeline = card().locator('ol.timeline');
    await expect.poll(() => timeline.isVisible()).toBe(true);
    const rows = timeline.locator('li.tl:not(.axis)');
    expect(await rows.count()).toBe(14);
    expect(await timeline.locator('li.k-fault').innerText()).toContain('fault injected: rate_limited');
    expect(await timeline.locator('li.k-retry').innerText()).toContain('retry 1 after 2 s');
    const tool = timeline.locator('li.k-tool_call');
    expect(await tool.innerText()).toMatch(/\+2\.125 s[\s\S]*issue_refund \(STATEFUL\)[\s\S]*5\.00 s/);
    // The tool call's bar sits on the time axis where the call started and as long as it took.
    const box = await tool.locator('.tl-track').boundingBox();
    const bar = await tool.locator('.tl-bar').boundingBox();
    expect(bar!.width).toBeGreaterThan(box!.width * 0.6);
    expect(bar!.x - box!.x).toBeGreaterThan(box!.width * 0.25);
    expect(bar!.x - box!.x).toBeLessThan(box!.width * 0.35);
    // Tool arguments are one click away.
    await tool.locator('details.tl-data > summary').click();
    expect(await tool.locator('details.tl-data pre').innerText()).toContain('"orderId": "1042"');
    expect(await timeline.locator('li.k-outcome').innerText()).toContain('failed{max_steps}');
  });

  it('highlights the failing assertion with expected and actual', async () => {
    const failing = card().locator('li.check.failing');
    expect(await failing.count()).toBe(2);
    const first = card().locator('li.check.first-failure');
    expect(await first.getAttribute('data-check')).toBe('outcome');
    expect(await first.locator('.expected pre').innerText()).toBe('replied');
    expect(await first.locator('.actual pre').innerText()).toBe('failed{max_steps}');
    const colour = await first.evaluate(background);
    const passing = await card().locator('li.check.ok').first().evaluate(background);
    expect(colour).not.toBe(passing);
  });

  it('keeps hostile data as text: nothing injected runs or becomes markup', async () => {
    expect(await page.locator('main b', { hasText: '#42' }).count()).toBe(0); // the data's <b>#42</b> stayed text
    expect(await page.locator('script').count()).toBe(2);
    expect(await card().locator('.case-why').innerText()).toContain('said "</script><script>alert(1)</script>" | `rm -rf` & \\x07bell\\x1b[31m');
    expect(await page.title()).toContain('FAILED');
    expect(HOSTILE).toContain('</script>');
  });

  it('filters by status and kind, and searches', async () => {
    const visibleIds = () => page.locator('details.case:not([hidden])').evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
    expect(await visibleIds()).toHaveLength(8);

    await page.locator('[data-filter="status"] button[data-value="failed"]').click();
    expect(await visibleIds()).toEqual([FAILED_ID, 'table:cancel@TOOL_RUNNING']);
    expect(await page.locator('#shown').innerText()).toBe('2 of 8 cases');

    await page.locator('[data-filter="kind"] button[data-value="table"]').click();
    expect(await visibleIds()).toEqual(['table:cancel@TOOL_RUNNING']);

    await page.locator('[data-filter="status"] button[data-value="all"]').click();
    await page.locator('[data-filter="kind"] button[data-value="all"]').click();
    await page.locator('#search').fill('REFUND');
    expect((await visibleIds()).sort()).toEqual(['scenario:live/refund-approval', 'scenario:refunds/approval-granted', FAILED_ID]);
    await page.locator('#search').fill('no such case');
    expect(await visibleIds()).toEqual([]);
    expect(await page.locator('#empty').isVisible()).toBe(true);
    await page.locator('#search').fill('');

    // A passed case opens on click and draws its timeline then.
    const passed = page.locator('details.case[data-id="scenario:refunds/approval-granted"]');
    expect(await passed.locator('ol.timeline').count()).toBe(0);
    await passed.locator('> summary').click();
    expect(await passed.locator('ol.timeline li.k-policy').innerText()).toContain('issue_refund: ask → approved');
    expect(problems).toEqual([]);
  });

  it("marks a peer run failing exactly as pinned PASSED, as its exit code; a fuzz run names the config's loop it did not fuzz (outside probe 39)", async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'loopgate-html-pinned-'));
    const base = sampleResults();
    const pinned = { ...base, loop: { name: 'openai-agents', version: '0.20.0' }, verdicts: { file: 'verdicts/oa.json', differences: [] } };
    const { files } = await writeReports(pinned, { reporters: ['html'], outDir });
    const other = await page.context().newPage();
    await other.goto(pathToFileURL(files.html!).href);
    await other.waitForSelector('body[data-ready="true"]', { timeout: 10_000 });
    expect(await other.locator('#verdict').innerText()).toBe('PASSED');
    const differs = { ...pinned, verdicts: { file: 'verdicts/oa.json', differences: [{ id: FAILED_ID, kind: 'newly fails' as const, message: 'm' }] } };
    const fuzzed = { ...base, fuzz: { agent: 'support', tools: ['issue_refund'], notFuzzed: 'openai-agents' } };
    for (const [results, dir] of [
      [differs, 'differs'],
      [fuzzed, 'fuzzed'],
    ] as const) {
      const written = await writeReports(results, { reporters: ['html'], outDir: join(outDir, dir) });
      await other.goto(pathToFileURL(written.files.html!).href);
      await other.waitForSelector('body[data-ready="true"]', { timeout: 10_000 });
      expect(await other.locator('#verdict').innerText()).toBe('FAILED');
    }
    expect(await other.locator('#top').innerText()).toContain("in loopgate's own loop: the config's loop openai-agents is not fuzzed (loopgate run gates it)");
    await other.close();
    expect(problems).toEqual([]);
  });

  it('shows the regressions and saves a screenshot', async () => {
    expect(await page.locator('#regressions').isVisible()).toBe(true);
    expect(await page.locator('#regressions').innerText()).toContain('steps 3 → 5 (+67%)');
    await page.locator('[data-filter="status"] button[data-value="all"]').click();
    await page.locator('#collapse-all').click();
    await card().locator('> summary').click();
    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(existsSync(SCREENSHOT)).toBe(true);
    expect(problems).toEqual([]);
  });
});
