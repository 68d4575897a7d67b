/**
 * What a person reads in the terminal after a run: one summary line per kind, a
 * table of the failed cases (every case with `verbose`) and, when there are many,
 * the checks failing in the most of them, the skipped ones with
 * their reasons, regressions, and a verdict. Returns text; the CLI decides where
 * it goes. Control characters from case data are made visible, never sent to the
 * terminal as escapes.
 */
import { costliest, unknown } from './cost/costliest.ts';
import { caseCostText, suiteCostText } from './cost/format-cost.ts';
import { boxTable } from './box-table.ts';
import { CASE_KINDS, casesForReading, failingRequest, failureText, formatDuration, oneLine, stepName } from './format.ts';
import { judgeVerdicts } from './judge-verdicts.ts';
import { fuzzSubjectText, type CaseResult, type CaseStatus, type KindSummary, type RunResults } from './results.ts';
import { printable } from './terminal-text.ts';

export interface ConsoleOptions {
  /** List passed cases too. */
  readonly verbose?: boolean;
  /** Terminal width to fit the table into (default 100). */
  readonly width?: number;
  /** ANSI colours (only when writing to a terminal). */
  readonly color?: boolean;
  /** Failed cases whose failing request (what the model saw) is printed (default 5). */
  readonly maxRequests?: number;
  /** Costliest cases listed (default 5; every case with `verbose`). */
  readonly maxCosts?: number;
  /** Judge verdicts listed (default 10; all with `verbose`). */
  readonly maxVerdicts?: number;
}

export const STATUS_MARK: Readonly<Record<CaseStatus, string>> = { passed: '✓', failed: '✗', skipped: '○' };

export { printable } from './terminal-text.ts';

const cell = (text: string, max = 2000) => printable(oneLine(text, max));

export function renderConsole(results: RunResults, options: ConsoleOptions = {}): string {
  const paint = painter(options.color ?? false);
  const width = Math.max(60, options.width ?? 100);
  const { summary } = results;
  const lines: string[] = [];

  const head = [`${summary.total} cases`, `${summary.passed} passed`, `${summary.failed} failed`, `${summary.skipped} skipped`];
  const shard = results.shard ? `, shard ${results.shard.index}/${results.shard.total}` : '';
  const loop = results.loop && results.loop.name !== 'loopgate' ? `, loop ${results.loop.name} ${results.loop.version}` : '';
  lines.push(`loopgate ${results.tool.version}: ${head.join(', ')} in ${formatDuration(results.durationMs)} (seed ${results.seed}${shard}${loop})`);
  const kindWidth = Math.max(...CASE_KINDS.map((k) => k.length));
  for (const kind of CASE_KINDS) {
    const k = summary.byKind[kind];
    if (k.total > 0) lines.push(`  ${kind.padEnd(kindWidth)}  ${kindLine(k, paint)}`);
  }
  if (summary.cost) lines.push(`  ${'cost'.padEnd(kindWidth)}  ${cell(suiteCostText(summary.cost))}`);
  if (results.fuzz) lines.push(`fuzzed ${cell(fuzzSubjectText(results.fuzz))}`);

  const ordered = casesForReading(results);
  const shown = options.verbose ? ordered : ordered.filter((c) => c.status === 'failed');
  if (shown.length > 0) lines.push('', caseTable(shown, options.verbose ?? false, width, paint));
  lines.push(...failingChecks(ordered));
  lines.push(...requestsSeen(ordered, options.maxRequests ?? 5, width));
  lines.push(...verdicts(results.cases, options.verbose ? Infinity : (options.maxVerdicts ?? 10), width, paint));
  lines.push(...costs(results.cases, options.verbose ? Infinity : (options.maxCosts ?? 5), width));

  const skipped = ordered.filter((c) => c.status === 'skipped');
  if (skipped.length > 0 && !options.verbose) {
    lines.push('', `skipped (${skipped.length}):`);
    for (const c of skipped) lines.push(`  ${STATUS_MARK.skipped} ${cell(c.id)} — ${cell(c.skipReason ?? 'no reason given')}`);
  }

  const regressions = results.regressions ?? [];
  if (regressions.length > 0) {
    lines.push('', `regressions against the baseline (${regressions.length}):`);
    for (const r of regressions) lines.push(`  ${paint.red('✗')} ${cell(r.id)} [${r.kind}] ${cell(r.message)}`);
  }

  // A peer loop judged against its pinned verdicts: the gate is whether it fails exactly as pinned, as the exit code says.
  const pinned = results.verdicts;
  const differences = pinned?.differences.length ?? 0;
  const problems = [
    summary.passed + summary.failed === 0 ? `nothing was checked (${summary.skipped} skipped)` : '',
    pinned ? '' : summary.failed > 0 ? `${summary.failed} failed` : '',
    differences > 0 ? `${differences} difference${differences === 1 ? '' : 's'} from the pinned verdicts in ${cell(pinned!.file)}` : '',
    regressions.length > 0 ? `${regressions.length} regression${regressions.length === 1 ? '' : 's'}` : '',
  ].filter(Boolean);
  const skippedCount = summary.skipped > 0 ? ` (${summary.skipped} skipped)` : '';
  lines.push(
    '',
    problems.length > 0
      ? paint.red(`FAILED: ${problems.join(', ')}`)
      : pinned
        ? paint.green(`PASSED as pinned: ${summary.passed} passed, ${summary.failed} failed as documented in ${cell(pinned.file)}${skippedCount}`)
        : paint.green(`PASSED: ${summary.passed} of ${summary.total}${skippedCount}`),
  );
  return `${lines.join('\n')}\n`;
}

/** For each failed case (up to `max`), the request of its failing step, as the model saw it. */
function requestsSeen(cases: readonly CaseResult[], max: number, width: number): string[] {
  const failed = cases.filter((c) => failingRequest(c) !== undefined);
  if (failed.length === 0 || max <= 0) return [];
  const out = ['', 'what the model saw at the failing step:'];
  for (const c of failed.slice(0, max)) {
    const request = failingRequest(c)!;
    out.push(`  ${cell(c.id)} — ${stepName(request)}:`);
    for (const line of request.lines) out.push(`    ${cell(line, width - 4)}`);
  }
  if (failed.length > max) out.push(`  … and ${failed.length - max} more (report.html and results.json have every step)`);
  return out;
}

/** What the judge models said, failed verdicts first: `✗ case — judge grader: reason`. */
function verdicts(cases: readonly CaseResult[], max: number, width: number, paint: Painter): string[] {
  const all = judgeVerdicts(cases);
  if (all.length === 0 || max <= 0) return [];
  const out = ['', `judged by a model (${all.length}):`];
  for (const { id, check, verdict } of all.slice(0, max)) {
    const mark = verdict.pass ? paint.green(STATUS_MARK.passed) : paint.red(STATUS_MARK.failed);
    out.push(`  ${mark} ${cell(id)} [${cell(check)}] — judge ${cell(verdict.judge)}: ${cell(verdict.reason, Math.max(40, width - 10))}`);
  }
  if (all.length > max) out.push(`  … and ${all.length - max} more (report.html and results.json have every verdict)`);
  return out;
}

/**
 * The cases whose cost is partly unknown (they need a price, or a look), under a
 * heading of their own, then the costliest of the rest (per turn when a case has
 * several). One list under "costliest" put $0.0001 cases with an unpriced call above
 * $54 bn ones (outside probe 14, CLI-5).
 */
function costs(cases: readonly CaseResult[], max: number, width: number): string[] {
  const priced = costliest(cases);
  if (priced.length === 0 || max <= 0) return [];
  const open = priced.filter((c) => unknown(c.metrics.cost));
  const rest = priced.filter((c) => !unknown(c.metrics.cost));
  const line = (c: (typeof priced)[number]) => `  ${cell(c.id)} — ${cell(caseCostText(c.metrics.cost), Math.max(40, width - 10))}`;
  const out = [''];
  if (open.length > 0) {
    out.push(
      `cost unknown in ${open.length} case${open.length === 1 ? '' : 's'} (an unpriced model, or a token count ≥ 2^53 − 1)${open.length > max ? `, the first ${max}` : ''}:`,
    );
    out.push(...open.slice(0, max).map(line));
  }
  if (rest.length > 0) {
    const other = open.length > 0;
    out.push(
      rest.length > max
        ? `cost, costliest ${max} of ${rest.length}${other ? ' other' : ''} cases:`
        : `cost by case${other ? ', the rest' : ''} (${rest.length}):`,
    );
    out.push(...rest.slice(0, max).map(line));
  }
  return out;
}

function kindLine(k: KindSummary, paint: Painter): string {
  const parts = [paint.green(`${k.passed} passed`)];
  if (k.failed > 0) parts.push(paint.red(`${k.failed} failed`));
  if (k.skipped > 0) parts.push(paint.yellow(`${k.skipped} skipped`));
  return `${parts.join(', ')} (${k.total})`;
}

function caseTable(cases: readonly CaseResult[], verbose: boolean, width: number, paint: Painter): string {
  const longest = (values: string[], cap: number) => Math.min(cap, Math.max(...values.map((v) => v.length)) + 2);
  const outcomeWidth = longest(['outcome', ...cases.map((c) => c.outcome ?? '—')], Math.min(26, Math.floor(width * 0.2)));
  const borders = verbose ? 6 : 4;
  // What is left after the fixed columns is shared by the id and the failure, the failure keeping at least 20.
  const shared = width - borders - outcomeWidth - (verbose ? 3 + 12 : 0);
  const idWidth = Math.max(10, Math.min(longest(['failed case', ...cases.map((c) => printable(c.id))], Math.floor(width * 0.4)), shared - 20));
  const rest = Math.max(12, shared - idWidth);
  const fixed = verbose ? [3, idWidth, outcomeWidth, 12] : [idWidth, outcomeWidth];
  const head = verbose ? ['', 'case', 'outcome', 'time', 'failure / reason'] : ['failed case', 'outcome', 'failure'];
  const rows: string[][] = [];
  for (const c of cases) {
    const why = c.status === 'failed' ? failureText(c) : c.status === 'skipped' ? (c.skipReason ?? 'skipped') : '';
    const row = [wrap(cell(c.id), idWidth - 2), wrap(cell(c.outcome ?? '—'), outcomeWidth - 2), wrap(cell(why), rest - 2)];
    const mark =
      c.status === 'failed' ? paint.red(STATUS_MARK.failed) : c.status === 'skipped' ? paint.yellow(STATUS_MARK.skipped) : paint.green(STATUS_MARK.passed);
    rows.push(verbose ? [mark, row[0]!, row[1]!, formatDuration(c.durationMs), row[2]!] : row);
  }
  return boxTable(head, [...fixed, rest], rows);
}

/** Wraps at spaces to `width` columns; a word longer than a line is split, never cut off. */
/** Failed cases at which one cause shows through the many: a list this long is not read case by case. */
const MANY_FAILED = 10;
const MOST_FAILING_CHECKS = 5;

/**
 * With many failed cases, the checks failing in the most of them, most first: one broken part fails hundreds of cases
 * whose ids do not name it, and the check they share does (outside probe 68: 779 failed cases, the first ids
 * pointing elsewhere).
 */
function failingChecks(cases: readonly CaseResult[]): string[] {
  const failed = cases.filter((c) => c.status === 'failed');
  if (failed.length < MANY_FAILED) return [];
  const counts = new Map<string, number>();
  for (const c of failed) for (const name of new Set(c.checks.filter((k) => !k.passed).map((k) => k.name))) counts.set(name, (counts.get(name) ?? 0) + 1);
  const top = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, MOST_FAILING_CHECKS);
  if (top.length === 0) return [];
  const digits = String(top[0]![1]).length;
  return [
    '',
    `failing checks, by the failed cases they fail in (${failed.length}):`,
    ...top.map(([name, n]) => `  ${String(n).padStart(digits)}  ${cell(name)}`),
  ];
}

export function wrap(text: string, width: number): string {
  const lines: string[] = [];
  let line = '';
  for (let word of text.split(' ')) {
    while (word.length > width) {
      const room = line ? width - line.length - 1 : width;
      if (room < Math.min(8, width)) {
        lines.push(line);
        line = '';
        continue;
      }
      lines.push(line ? `${line} ${word.slice(0, room)}` : word.slice(0, room));
      line = '';
      word = word.slice(room);
    }
    if (!line) line = word;
    else if (line.length + 1 + word.length <= width) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  lines.push(line);
  return lines.join('\n');
}

interface Painter {
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
}

function painter(color: boolean): Painter {
  const wrap = (code: number) => (text: string) => (color ? `\u001b[${code}m${text}\u001b[39m` : text);
  return { red: wrap(31), green: wrap(32), yellow: wrap(33) };
}
