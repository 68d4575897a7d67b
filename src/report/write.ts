/**
 * Writes the chosen reports for a run under one directory (creating it) and
 * returns the console text for the CLI to print. The only reporter module that
 * touches the file system; each file is written whole or not at all (temp file,
 * then rename), so a CI step never picks up half a report, and only once every
 * report read back tells the run's verdict (verify.ts).
 */
import { join } from 'node:path';
import { createRedactor, redactDeep, secretsFromEnv, type Redactor } from '../kernel/index.ts';
import { ensureDirectory, writeFileAtomic } from '../files/index.ts';
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
  // Read back before anything is written: a report must tell the run's verdict.
  verifyReports(results, rendered);
  const files: Partial<Record<FileReporter, string>> = {};
  if (fileReporters.length > 0) ensureDirectory(options.outDir, 'report directory');
  for (const reporter of fileReporters) {
    const path = join(options.outDir, REPORT_FILES[reporter]);
    writeFileAtomic(path, rendered[reporter]!, `${reporter} report`);
    files[reporter] = path;
  }
  return reporters.includes('console') ? { console: renderConsole(results, options.console), files } : { files };
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
