/**
 * `loopgate merge-reports <files..> [--out DIR] [--reporter ...] [--baseline FILE]`:
 * merges the results.json of shards (`run --shard i/n`) into one run and writes
 * its reports. Compare with the baseline here, after the merge: only the whole
 * run can tell a missing case from one that ran in another shard.
 * Exit 0 all passed, 1 failures or regressions, 2 bad input (a file that is not
 * a results file, overlapping or missing shards, different seeds).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { compareWithBaseline, readBaselineFile } from '../../report/baseline.ts';
import { ReportFileError } from '../../report/file-error.ts';
import { readResultsFile } from '../../report/json.ts';
import { mergeResults, MergeError } from '../../report/merge.ts';
import type { RunResults } from '../../report/results.ts';
import { parseReporters, REPORTERS, REPORT_FILES, UnknownReporterError, writeReports } from '../../report/write.ts';
import { EXIT, UsageError } from '../exit-codes.ts';

export interface MergeReportsArgs {
  files: string[];
  out: string;
  reporter: string[];
  baseline?: string;
  stepsThreshold?: number;
  tokensThreshold?: number;
  verbose?: boolean;
}

/** A directory stands for the results.json in it (`merge-reports shard-*`). */
function resultsPath(path: string): string {
  try {
    return statSync(path).isDirectory() ? join(path, REPORT_FILES.json) : path;
  } catch {
    return path; // reading it reports "no such file" with the path
  }
}

export async function mergeReports(args: MergeReportsArgs, out: (text: string) => void): Promise<number> {
  try {
    const reporters = parseReporters(args.reporter);
    if (args.files.length === 0) throw new UsageError('merge-reports: give the results.json files (or their directories) of every shard');
    const parts = [];
    for (const file of args.files.map(resultsPath)) parts.push({ source: file, results: await readResultsFile(file) });
    let merged: RunResults = mergeResults(parts);
    if (args.baseline !== undefined) {
      const baseline = await readBaselineFile(args.baseline);
      const regressions = compareWithBaseline(merged, baseline, { stepsThreshold: args.stepsThreshold, tokensThreshold: args.tokensThreshold });
      merged = { ...merged, regressions };
    }
    const written = await writeReports(merged, { reporters, outDir: args.out, console: { verbose: args.verbose ?? false, width: process.stdout.columns } });
    if (written.console !== undefined) out(written.console);
    out(
      `merged ${parts.length} results file${parts.length === 1 ? '' : 's'} (${merged.summary.total} cases)${Object.values(written.files).length ? `; wrote ${Object.values(written.files).join(', ')}` : ''}\n`,
    );
    return merged.summary.failed > 0 || (merged.regressions?.length ?? 0) > 0 ? EXIT.failed : EXIT.passed;
  } catch (error) {
    if (error instanceof ReportFileError || error instanceof MergeError || error instanceof UnknownReporterError || error instanceof RangeError) {
      throw new UsageError(error.message);
    }
    throw error;
  }
}

export const mergeReportsCommand: CommandModule<object, MergeReportsArgs> = {
  command: 'merge-reports <files..>',
  describe: 'Merge the results.json of shards into one run and write its reports',
  builder: (y: Argv) =>
    y
      .positional('files', { type: 'string', array: true, demandOption: true, describe: 'results.json files of the shards, or the directories holding them' })
      .option('out', { type: 'string', default: 'reports', describe: 'directory for the merged reports' })
      .option('reporter', {
        type: 'string',
        array: true,
        default: [...REPORTERS],
        describe: `reports to write (repeat or comma-separate): ${REPORTERS.join(', ')}`,
      })
      .option('baseline', { type: 'string', describe: 'baseline file (or a results.json): fail on regressions against it' })
      .option('steps-threshold', { type: 'number', describe: 'relative increase of steps tolerated against the baseline (default 0.2)' })
      .option('tokens-threshold', { type: 'number', describe: 'relative increase of tokens tolerated against the baseline (default 0.2)' })
      .option('verbose', { type: 'boolean', default: false, describe: 'list passed cases in the console report too' }) as unknown as Argv<MergeReportsArgs>,
  handler: async (args) => {
    process.exitCode = await mergeReports(args, (text) => process.stdout.write(text));
  },
};
