/**
 * A Markdown summary for a CI job page (GitHub's $GITHUB_STEP_SUMMARY, GitLab
 * and others render the same GFM): a verdict, totals by kind, a table of
 * failures with the first failing check, regressions, skipped cases, and per
 * failed case a collapsible section with every failing check and the timeline.
 * Case data is escaped so it cannot inject markup, links or HTML into the page.
 */
import { printable } from './console.ts';
import {
  CASE_KINDS,
  casesForReading,
  failingChecks,
  failingRequest,
  failureText,
  formatDuration,
  oneLine,
  showValue,
  stepName,
  timelineLine,
} from './format.ts';
import { costliest, unknown } from './cost/costliest.ts';
import { costText, suiteCostText, turnCostsText } from './cost/format-cost.ts';
import { judgeVerdicts } from './judge-verdicts.ts';
import { fuzzSubjectText, nothingChecked, runPassed, type CaseResult, type RunResults } from './results.ts';

export interface MarkdownOptions {
  /** Failed cases listed in tables and details; the rest are counted (default 50; keeps the page under CI limits). */
  readonly maxFailures?: number;
  /** Characters of one expected/actual value before it is cut (default 4000). */
  readonly maxValueChars?: number;
  /** Where the HTML report lives, to point readers at it (e.g. an artifact name). */
  readonly htmlReport?: string;
}

/** Escapes text for inline Markdown (a table cell, a paragraph): HTML, emphasis, links, code and pipes. */
export function mdInline(text: string, max = 300): string {
  return printable(oneLine(text, max))
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]|~#!])/g, '\\$1');
}

/** Escapes text inside an HTML element such as <summary> (Markdown is not rendered there). */
function htmlInline(text: string, max = 300): string {
  return printable(oneLine(text, max)).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A fenced code block whose fence is longer than any backtick run inside it. */
export function codeBlock(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${printableBlock(text)}\n${fence}`;
}

// Keeps line breaks and tabs in blocks, shows other control characters.
const printableBlock = (text: string) =>
  text
    .split('\n')
    .map((line) => printable(line.replace(/\t/g, '  ')))
    .join('\n');

export function renderMarkdown(results: RunResults, options: MarkdownOptions = {}): string {
  const maxFailures = options.maxFailures ?? 50;
  const { summary } = results;
  const regressions = results.regressions ?? [];
  const ordered = casesForReading(results);
  const failed = ordered.filter((c) => c.status === 'failed');
  const skipped = ordered.filter((c) => c.status === 'skipped');
  const out: string[] = [];

  // A peer run judged against its pinned verdicts passes when it fails exactly as pinned.
  const ok = runPassed(results);
  const counts = [
    `${summary.passed} passed`,
    ...(summary.failed ? [`${summary.failed} failed`] : []),
    ...(summary.skipped ? [`${summary.skipped} skipped`] : []),
  ];
  const regressionText = regressions.length ? `, ${regressions.length} regression${regressions.length === 1 ? '' : 's'}` : '';
  out.push(`## ${ok ? '✅' : '❌'} loopgate: ${nothingChecked(results) ? 'nothing was checked: ' : ''}${counts.join(', ')}${regressionText}`, '');
  const meta = [`${summary.total} cases in ${formatDuration(results.durationMs)}`, `seed ${results.seed}`, `loopgate ${mdInline(results.tool.version)}`];
  // The loop is part of the run's identity; a file without it is a run of loopgate's own loop.
  const loop = results.loop ?? { name: 'loopgate', version: results.tool.version };
  meta.push(loop.name === 'loopgate' ? 'loop loopgate' : `loop ${mdInline(`${loop.name} (${loop.version})`)}`);
  if (results.shard) meta.push(`shard ${results.shard.index}/${results.shard.total}`);
  if (summary.cost) meta.push(`cost ${mdInline(suiteCostText(summary.cost))}`);
  out.push(meta.join(' · '), '');
  if (results.fuzz) out.push(`fuzzed ${mdInline(fuzzSubjectText(results.fuzz))}`, '');
  if (results.verdicts) {
    const { file, differences: diff } = results.verdicts;
    out.push(
      diff.length === 0 && nothingChecked(results)
        ? `${mdInline(loop.name)} skipped every case, as pinned in ${mdInline(file)}: nothing was checked`
        : diff.length === 0 && results.summary.failed === 0
          ? `${mdInline(loop.name)} passes every case it ran, as pinned in ${mdInline(file)}`
          : diff.length === 0
            ? `${mdInline(loop.name)} fails exactly as documented: every case judged as pinned in ${mdInline(file)}`
            : `**${mdInline(loop.name)} differs from the pinned verdicts** in ${mdInline(file)} (${diff.length}): ${diff
                .slice(0, 20)
                .map((d) => `${mdInline(d.id)} (${d.kind})`)
                .join(', ')}${diff.length > 20 ? ', …' : ''}`,
      '',
    );
  }

  out.push('| kind | passed | failed | skipped | total |', '|---|--:|--:|--:|--:|');
  for (const kind of CASE_KINDS) {
    const k = summary.byKind[kind];
    if (k.total > 0) out.push(`| ${kind} | ${k.passed} | ${k.failed ? `**${k.failed}**` : 0} | ${k.skipped} | ${k.total} |`);
  }
  out.push(`| **all** | **${summary.passed}** | **${summary.failed}** | **${summary.skipped}** | **${summary.total}** |`, '');

  if (failed.length > 0) {
    out.push(`### Failures (${failed.length})`, '', '| case | outcome | first failing check |', '|---|---|---|');
    for (const c of failed.slice(0, maxFailures)) out.push(`| ${mdInline(c.id)} | ${mdInline(c.outcome ?? '—')} | ${mdInline(firstFailure(c))} |`);
    out.push(...more(failed.length, maxFailures), '');
  }

  if (regressions.length > 0) {
    out.push(`### Regressions against the baseline (${regressions.length})`, '', '| case | regression | what changed |', '|---|---|---|');
    for (const r of regressions.slice(0, maxFailures)) out.push(`| ${mdInline(r.id)} | ${r.kind} | ${mdInline(r.message)} |`);
    out.push(...more(regressions.length, maxFailures), '');
  }

  if (skipped.length > 0) {
    out.push(`<details><summary>Skipped (${skipped.length})</summary>`, '', '| case | reason |', '|---|---|');
    for (const c of skipped.slice(0, maxFailures)) out.push(`| ${mdInline(c.id)} | ${mdInline(c.skipReason ?? 'no reason given')} |`);
    out.push(...more(skipped.length, maxFailures), '', '</details>', '');
  }

  const verdicts = judgeVerdicts(results.cases);
  if (verdicts.length > 0) {
    const open = verdicts.some((v) => !v.verdict.pass);
    out.push(
      `<details${open ? ' open' : ''}><summary>Judged by a model (${verdicts.length})</summary>`,
      '',
      '| case | check | judge | verdict | reason |',
      '|---|---|---|---|---|',
    );
    for (const v of verdicts.slice(0, maxFailures))
      out.push(
        `| ${mdInline(v.id)} | ${mdInline(v.check)} | ${mdInline(v.verdict.judge)} | ${v.verdict.pass ? '✅ pass' : '❌ fail'} | ${mdInline(v.verdict.reason, 500)} |`,
      );
    out.push(...more(verdicts.length, maxFailures), '', '</details>', '');
  }

  const priced = costliest(results.cases);
  if (priced.length > 0) {
    // The unknown costs sort first (they need a price): the heading says so, or the order reads as "costliest" (outside probe 14, CLI-5).
    const open = priced.filter((c) => unknown(c.metrics.cost)).length;
    const order = open > 0 ? `; the ${open} with an unknown cost first, then the costliest` : ', costliest first';
    out.push(`<details><summary>Cost by case (${priced.length}${order})</summary>`, '', '| case | cost | per turn |', '|---|--:|---|');
    for (const c of priced.slice(0, maxFailures))
      out.push(`| ${mdInline(c.id)} | ${mdInline(costText(c.metrics.cost))} | ${mdInline(turnCostsText(c.metrics.cost) || '—')} |`);
    out.push(...more(priced.length, maxFailures), '', '</details>', '');
  }

  if (failed.length > 0) {
    out.push('### Failure details', '');
    for (const c of failed.slice(0, maxFailures)) out.push(...details(c, options.maxValueChars ?? 4000));
    out.push(...more(failed.length, maxFailures));
  }
  if (options.htmlReport) out.push(`Per-case timelines: ${mdInline(options.htmlReport)}`, '');
  return `${out.join('\n').trimEnd()}\n`;
}

function firstFailure(c: CaseResult): string {
  const first = failingChecks(c)[0];
  return first ? `${first.name}: ${first.message}` : failureText(c);
}

function more(total: number, shown: number): string[] {
  return total > shown ? ['', `… and ${total - shown} more (see results.json or report.html).`] : [];
}

function details(c: CaseResult, maxValueChars: number): string[] {
  const clip = (text: string) =>
    text.length > maxValueChars ? `${text.slice(0, maxValueChars)}\n… (cut at ${maxValueChars} characters; see results.json)` : text;
  const out = [`<details><summary><code>${htmlInline(c.id)}</code> — ${htmlInline(c.outcome ?? 'no outcome')}</summary>`, ''];
  out.push(`${mdInline(c.title)}${c.file ? ` (${mdInline(c.file)})` : ''}`, '');
  const failing = failingChecks(c);
  if (failing.length === 0) out.push(`**failure:** ${mdInline(failureText(c), 2000)}`, '');
  for (const check of failing) {
    out.push(`**✗ ${mdInline(check.name)}:** ${mdInline(check.message, 2000)}`, '');
    if ('expected' in check) out.push('expected:', '', codeBlock(clip(showValue(check.expected, 2))), '');
    if ('actual' in check) out.push('actual:', '', codeBlock(clip(showValue(check.actual, 2))), '');
  }
  const request = failingRequest(c);
  if (request) out.push(`what the model saw at the failing step (${stepName(request)}):`, '', codeBlock(request.lines.join('\n')), '');
  if (c.timeline?.length) out.push('timeline:', '', codeBlock(c.timeline.map(timelineLine).join('\n')), '');
  out.push('</details>', '');
  return out;
}
