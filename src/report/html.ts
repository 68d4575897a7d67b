/**
 * One self-contained HTML file: inline CSS and script, no external URL (a
 * Content-Security-Policy forbids any fetch), the results embedded as JSON in a
 * <script type="application/json"> tag. Per case: checks with the failing
 * assertion highlighted (expected vs actual) and a timeline on a virtual time
 * axis; failed cases first and open; a status and kind filter and a search box.
 */
import { REPORT_SCRIPT } from './html-client.ts';
import { REPORT_CSS } from './html-style.ts';
import { jsonSafe } from './json-safe.ts';
import { nothingChecked, runPassed, type RunResults } from './results.ts';

export interface HtmlOptions {
  /** Page title (default: "loopgate report" and the verdict). */
  readonly title?: string;
}

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/**
 * JSON that is safe inside a <script> element: no `<`, `>` or `&` can appear
 * (so neither `</script>` nor `<!--` can end or change the element), and the
 * line separators old parsers choke on are escaped. Still valid JSON.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(jsonSafe(value))
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

export function renderHtml(results: RunResults, options: HtmlOptions = {}): string {
  const regressions = results.regressions?.length ?? 0;
  const verdict = nothingChecked(results)
    ? `FAILED (nothing was checked: ${results.summary.skipped} skipped)`
    : !runPassed(results)
      ? `FAILED (${results.summary.failed} failed${regressions ? `, ${regressions} regressions` : ''} of ${results.summary.total})`
      : results.summary.failed > 0
        ? `failed as pinned (${results.summary.failed} failed of ${results.summary.total})` // a peer loop, exactly as its pinned verdicts
        : `passed (${results.summary.total})`;
  const title = options.title ?? `loopgate report — ${verdict}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(CSP)}">
<meta name="generator" content="loopgate ${escapeHtml(results.tool.version)}">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<style>${REPORT_CSS}</style>
</head>
<body>
<div class="page">
<header class="top" id="top"></header>
<noscript><p>This report draws its cases with JavaScript. The same data is in results.json next to it.</p></noscript>
<section class="regressions" id="regressions" hidden></section>
<nav class="controls" id="controls" aria-label="Filter cases"></nav>
<main id="cases"></main>
<p id="empty" hidden>No case matches the filter.</p>
</div>
<script type="application/json" id="loopgate-results">${scriptJson(results)}</script>
<script>${REPORT_SCRIPT}</script>
</body>
</html>
`;
}
