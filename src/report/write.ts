/**
 * Writes the chosen reports for a run under one directory (creating it) and
 * returns the console text for the CLI to print. The only reporter module that
 * touches the file system; each file is written whole or not at all (temp file,
 * then rename), so a CI step never picks up half a report.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { renderConsole, type ConsoleOptions } from './console.ts';
import { renderHtml } from './html.ts';
import { renderResultsJson } from './json.ts';
import { renderJunit } from './junit.ts';
import { renderMarkdown, type MarkdownOptions } from './markdown.ts';
import type { RunResults } from './results.ts';

export const REPORTERS = ['console', 'json', 'junit', 'markdown', 'html'] as const;
export type ReporterName = (typeof REPORTERS)[number];
export type FileReporter = Exclude<ReporterName, 'console'>;

/** The file each reporter writes under `outDir`. */
export const REPORT_FILES: Readonly<Record<FileReporter, string>> = {
  json: 'results.json',
  junit: 'junit.xml',
  markdown: 'summary.md',
  html: 'report.html',
};

export class UnknownReporterError extends Error {
  readonly reporter: string;
  constructor(reporter: string) {
    super(`unknown reporter "${reporter}"; known reporters: ${REPORTERS.join(', ')}`);
    this.name = 'UnknownReporterError';
    this.reporter = reporter;
  }
}

/** Reporter names from flags: repeated and/or comma-separated (`--reporter junit,html`), de-duplicated, checked. */
export function parseReporters(values: string | readonly string[]): ReporterName[] {
  const names = (typeof values === 'string' ? [values] : values)
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  const out: ReporterName[] = [];
  for (const name of names) {
    if (!(REPORTERS as readonly string[]).includes(name)) throw new UnknownReporterError(name);
    if (!out.includes(name as ReporterName)) out.push(name as ReporterName);
  }
  return out;
}

export interface WriteReportsOptions {
  readonly reporters: readonly string[];
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

export async function writeReports(results: RunResults, options: WriteReportsOptions): Promise<WrittenReports> {
  const reporters = parseReporters(options.reporters); // before touching the disk
  const fileReporters = reporters.filter((r): r is FileReporter => r !== 'console');
  const files: Partial<Record<FileReporter, string>> = {};
  if (fileReporters.length > 0) {
    try {
      await mkdir(options.outDir, { recursive: true });
    } catch (error) {
      throw new Error(`cannot create the report directory ${options.outDir}: ${(error as Error).message}`);
    }
  }
  for (const reporter of fileReporters) {
    const text = render(reporter, results, reporters, options);
    const path = join(options.outDir, REPORT_FILES[reporter]);
    const temp = `${path}.${process.pid}.tmp`;
    try {
      await writeFile(temp, text, 'utf8');
      await rename(temp, path);
    } catch (error) {
      throw new Error(`cannot write the ${reporter} report to ${path}: ${(error as Error).message}`);
    }
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
