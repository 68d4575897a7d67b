/**
 * Stryker's options for a run of one judge over a sample of sites.
 *
 * - Each judge is a vitest config: `gate` runs bench/mutation/gate.judge.ts only,
 *   `suite` every test of `npm test` (vitest.config.ts, with longer time limits).
 * - perTest coverage: a mutant runs only the tests that reach it (all of them if
 *   it is reached while modules load: a "static" mutant); `related: false`, since
 *   vitest's import graph does not see the CLI's lazy imports. A test that
 *   reaches a line only through a value cached by an earlier test is not seen
 *   as reaching it: `--coverage all` runs every test of the judge per mutant.
 * - `tsconfigFile` names no file: Stryker's tsconfig preprocessor calls
 *   TypeScript's JavaScript API (`parseConfigFileTextToJson`), which the native
 *   TypeScript 7 of this repository no longer has; our tsconfig has no `extends`
 *   or `references` for it to rewrite anyway.
 */
import { join } from 'node:path';
import type { LogLevel, PartialStrykerOptions } from '@stryker-mutator/api/core';
import type { Coverage, Judge } from './args.ts';
import { IGNORER_NAME } from './sample-ignorer.ts';

export const VITEST_CONFIG: Record<Judge, string> = {
  gate: 'bench/mutation/vitest.gate.config.ts',
  suite: 'bench/mutation/vitest.suite.config.ts',
};

/** Where a judge's Stryker reports, sites and incremental file go (reports/ is not committed). */
export const workDir = (root: string, judge: Judge) => join(root, 'reports', 'mutation', judge);

export function strykerOptions(options: {
  readonly root: string;
  readonly judge: Judge;
  readonly patterns: readonly string[];
  readonly concurrency: number;
  readonly coverage?: Coverage;
  readonly incremental: boolean;
}): PartialStrykerOptions {
  const dir = workDir(options.root, options.judge);
  return {
    testRunner: 'vitest',
    plugins: ['@stryker-mutator/vitest-runner', join(options.root, 'scripts', 'mutate', 'sample-ignorer.ts')],
    vitest: { configFile: VITEST_CONFIG[options.judge], related: false },
    coverageAnalysis: options.coverage ?? 'perTest',
    mutate: [...options.patterns],
    ignorers: [IGNORER_NAME],
    concurrency: options.concurrency,
    // A mutant that makes the loop spin is a timeout (detected); a busy 2-core machine needs the slack.
    timeoutMS: 20_000,
    timeoutFactor: 2,
    // The first run of the whole suite, one test file at a time with coverage, takes a quarter of an hour here.
    dryRunTimeoutMinutes: 90,
    reporters: ['json', 'html', 'progress-append-only'],
    jsonReporter: { fileName: join(dir, 'mutation.json') },
    htmlReporter: { fileName: join(dir, 'mutation.html') },
    incremental: options.incremental,
    incrementalFile: join(dir, 'incremental.json'),
    tsconfigFile: 'tsconfig.stryker-none.json',
    // One sandbox folder per judge, so the two can run at once; neither copies the other's.
    tempDirName: `.stryker-tmp/${options.judge}`,
    cleanTempDir: true,
    ignorePatterns: [
      '/.stryker-tmp',
      '/reports',
      '/.loopgate',
      '/dist',
      '/bench/results',
      '/coverage',
      '*.db',
      '*.db-wal',
      '*.db-shm',
      '*.cpuprofile',
      '*.tgz',
    ],
    thresholds: { high: 97, low: 90, break: null },
    logLevel: 'info' as LogLevel,
    fileLogLevel: 'off' as LogLevel,
  };
}
