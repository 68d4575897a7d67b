/** The reporters `--reporter` may name, and the file each writes. No imports: command definitions (loaded for `--help`) use it. */
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
