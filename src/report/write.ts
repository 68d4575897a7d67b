/**
 * Writes the chosen reports for a run under one directory (creating it) and
 * returns the console text for the CLI to print. The only reporter module that
 * touches the file system; each file is written whole or not at all (temp file,
 * then rename), so a CI step never picks up half a report, and only once every
 * report read back tells the run's verdict (verify.ts).
 */
import { closeSync, lstatSync, openSync, readSync, unlinkSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { createRedactor, redactDeep, secretsFromEnv, type Redactor } from '../kernel/index.ts';
import { ensureDirectory, errnoText, OutputPathError, writeFileAtomic } from '../files/index.ts';
import { renderConsole, type ConsoleOptions } from './console.ts';
import { renderHtml } from './html.ts';
import { renderResultsJson } from './json.ts';
import { renderJunit } from './junit.ts';
import { renderMarkdown, type MarkdownOptions } from './markdown.ts';
import { parseReporters } from './parse-reporters.ts';
import { REPORT_FILES, type FileReporter, type ReporterName } from './reporters.ts';
import type { RunResults } from './results.ts';
import { verifyReports } from './verify.ts';

export { parseReporters, UnknownReporterError } from './parse-reporters.ts';
export { ReportDisagreesError } from './verify.ts';
export { REPORTERS, REPORT_FILES, type FileReporter, type ReporterName } from './reporters.ts';

export interface WriteReportsOptions {
  readonly reporters: readonly string[];
  /** Applied to every string of the results before any format renders them. Default: the common credential shapes and the secrets in the environment. */
  readonly redact?: Redactor;
  readonly outDir: string;
  readonly console?: ConsoleOptions;
  readonly markdown?: MarkdownOptions;
}

export interface WrittenReports {
  /** The console report's text, when `console` was asked for (the caller prints it). */
  readonly console?: string;
  /** The path of each file written. */
  readonly files: Readonly<Partial<Record<FileReporter, string>>>;
}

export async function writeReports(given: RunResults, options: WriteReportsOptions): Promise<WrittenReports> {
  const reporters = parseReporters(options.reporters); // before touching the disk
  // Every format — console included — renders the same redacted results.
  const results = redactDeep(given, options.redact ?? createRedactor({ secrets: secretsFromEnv() })) as RunResults;
  const fileReporters = reporters.filter((r): r is FileReporter => r !== 'console');
  const rendered: Partial<Record<FileReporter, string>> = {};
  for (const reporter of fileReporters) rendered[reporter] = render(reporter, results, reporters, options);
  const console = reporters.includes('console') ? renderConsole(results, options.console) : undefined;
  // Read back before anything is written: a report must tell the run's verdict (the console's verdict line too).
  verifyReports(results, console === undefined ? rendered : { ...rendered, console });
  // A file of a report's name that loopgate did not write is someone's own: refused, never replaced.
  for (const reporter of fileReporters) {
    const path = join(options.outDir, REPORT_FILES[reporter]);
    if (lstatOrMissing(path)?.isFile()) checkOurs(path, reporter);
  }
  const files: Partial<Record<FileReporter, string>> = {};
  if (fileReporters.length > 0) ensureDirectory(options.outDir, 'report directory');
  for (const reporter of fileReporters) {
    const path = join(options.outDir, REPORT_FILES[reporter]);
    writeFileAtomic(path, rendered[reporter]!, `${reporter} report`);
    files[reporter] = path;
  }
  return console !== undefined ? { console, files } : { files };
}

/**
 * Removes the reports `reporters` write under `outDir`, and the temporary files
 * this process's writes left beside them — all but `keep` (paths the run reads,
 * such as its baseline). What an earlier run left there must not pass for this
 * run's while it runs, nor once it was interrupted or died before writing its
 * own. Returns the file names removed (missing ones are skipped). A report path
 * that is not a file (a directory), or a file of a report's name that is not a
 * loopgate report (the user's own `summary.md` in `--out docs`), is an
 * OutputPathError, before anything is removed.
 */
export function removeReports(outDir: string, reporters: readonly string[], keep: readonly string[] = []): string[] {
  const kept = new Set(keep.map((path) => resolve(path)));
  const paths: string[] = [];
  for (const reporter of parseReporters(reporters)) {
    if (reporter === 'console') continue;
    const path = join(outDir, REPORT_FILES[reporter]);
    if (kept.has(resolve(path))) continue;
    for (const candidate of [path, `${path}.${process.pid}.tmp`]) {
      const stat = lstatOrMissing(candidate);
      if (!stat) continue;
      if (!stat.isFile() && !stat.isSymbolicLink())
        throw new OutputPathError(candidate, `is not a file: it cannot be replaced by the ${reporter} report (remove it, or choose another --out)`);
      if (candidate === path && stat.isFile()) checkOurs(path, reporter);
      paths.push(candidate);
    }
  }
  const removed: string[] = [];
  for (const path of paths) {
    try {
      unlinkSync(path);
      removed.push(basename(path));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new OutputPathError(path, `cannot remove the earlier run's report: ${errnoText(error)}`);
    }
  }
  return removed;
}

/** How each report begins (within its first 4 KiB); a file of a report's name that does not is not loopgate's. */
const REPORT_SIGNATURES: Readonly<Record<FileReporter, RegExp>> = {
  json: /^\s*\{\s*"schema"\s*:\s*"loopgate\.results\//,
  junit: /^\s*<\?xml[^>]*\?>\s*<testsuites name="loopgate"/,
  markdown: /^## (?:✅|❌) loopgate: /,
  html: /^<!doctype html>[\s\S]*?<meta name="generator" content="loopgate[ "]/i,
};

/** Refuses the file at `path` unless it is a `reporter` report loopgate wrote: removing or replacing it would lose someone's file. */
function checkOurs(path: string, reporter: FileReporter): void {
  let head: string;
  try {
    const fd = openSync(path, 'r');
    try {
      const buffer = Buffer.alloc(4096);
      head = buffer.toString('utf8', 0, readSync(fd, buffer, 0, buffer.length, 0));
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    throw new OutputPathError(path, `cannot read it: ${errnoText(error)}`);
  }
  if (!REPORT_SIGNATURES[reporter].test(head))
    throw new OutputPathError(path, `is not a ${reporter} report of loopgate's: the run would replace it (move it, or choose another --out)`);
}

function lstatOrMissing(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new OutputPathError(path, `cannot read it: ${errnoText(error)}`);
  }
}

function render(reporter: FileReporter, results: RunResults, all: readonly ReporterName[], options: WriteReportsOptions): string {
  switch (reporter) {
    case 'json':
      return renderResultsJson(results);
    case 'junit':
      return renderJunit(results);
    case 'markdown':
      return renderMarkdown(results, { ...(all.includes('html') ? { htmlReport: REPORT_FILES.html } : {}), ...options.markdown });
    case 'html':
      return renderHtml(results);
  }
}
