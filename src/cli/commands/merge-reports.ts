/**
 * `loopgate merge-reports <files..> [--out DIR] [--reporter ...] [--baseline FILE]`:
 * merges the results.json of shards (`run --shard i/n`) into one run and writes
 * its reports. Compare with the baseline here, after the merge: only the whole
 * run can tell a missing case from one that ran in another shard.
 * Exit 0 all passed (a peer loop judged against its pinned verdicts: failing
 * exactly as pinned), 1 failures or regressions, 2 bad input (a file that is not
 * a results file, overlapping or missing shards, different seeds).
 */
import { realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sameFile } from '../../files/index.ts';
import { compareWithBaseline, readBaselineFile } from '../../report/baseline.ts';
import { ReportFileError } from '../../report/file-error.ts';
import { readResultsFile } from '../../report/json.ts';
import { mergeResults, MergeError } from '../../report/merge.ts';
import { runPassed, type RunResults } from '../../report/results.ts';
import { renderVerdictComparison } from '../../report/peer-verdicts.ts';
import { parseReporters, REPORT_FILES, UnknownReporterError, writeReports } from '../../report/write.ts';
import { EXIT } from '../exit-codes.ts';
import { UsageError } from '../usage-error.ts';

export interface MergeReportsArgs {
  files: string[];
  out: string;
  reporter: string[];
  baseline?: string;
  stepsThreshold?: number;
  tokensThreshold?: number;
  costThreshold?: number;
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

/** What a path is, whatever way it was written (a dangling one: its absolute path). */
function identity(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

export async function mergeReports(args: MergeReportsArgs, out: (text: string) => void): Promise<number> {
  try {
    const reporters = parseReporters(args.reporter);
    if (args.files.length === 0) throw new UsageError('merge-reports: give the results.json files (or their directories) of every shard');
    const parts = [];
    const inputs = args.files.map(resultsPath);
    // One file named twice (`merge-reports a a`, `a` and `a/results.json`) would read as a shard run twice.
    const identities = inputs.map(identity);
    identities.forEach((id, i) => {
      const first = identities.indexOf(id);
      if (first === i) return;
      const [a, b] = [args.files[first]!, args.files[i]!];
      throw new UsageError(`${a === b ? `${a}: given twice` : `${a} and ${b} are the same file, given twice`}; give each shard's results once`);
    });
    // Writing the merged reports must not replace a shard's results before it is merged again.
    const targets = reporters.filter((r) => r !== 'console').map((r) => resolve(args.out, REPORT_FILES[r as keyof typeof REPORT_FILES]));
    // Also through a link to the same folder (outside probe 64, F6). A baseline there is read first, as `run` reads one.
    const clash = inputs.find((file) => targets.some((target) => sameFile(target, file)));
    if (clash) throw new UsageError(`merge-reports --out ${args.out}: would overwrite the input ${clash}; write the merged reports elsewhere`);
    for (const file of inputs) parts.push({ source: file, results: await readResultsFile(file) });
    let merged: RunResults = mergeResults(parts);
    if (args.baseline !== undefined) {
      const baseline = await readBaselineFile(args.baseline);
      // The loop is part of a run's identity, as `run --baseline` holds: another loop's differences are no regressions.
      const mergedLoop = merged.loop?.name ?? 'loopgate';
      if ((baseline.loop?.name ?? 'loopgate') !== mergedLoop) {
        const taken = baseline.loop ? '' : ' (written before loopgate recorded the loop: taken as loopgate)';
        throw new UsageError(
          `--baseline ${args.baseline}: a baseline of loop ${baseline.loop?.name ?? 'loopgate'}${taken}; these shards gate ${mergedLoop}: compare runs of one loop (keep a baseline per loop)`,
        );
      }
      const regressions = compareWithBaseline(merged, baseline, {
        stepsThreshold: args.stepsThreshold,
        tokensThreshold: args.tokensThreshold,
        costThreshold: args.costThreshold,
      });
      merged = { ...merged, regressions };
    }
    const written = await writeReports(merged, { reporters, outDir: args.out, console: { verbose: args.verbose ?? false, width: process.stdout.columns } });
    if (written.console !== undefined) out(written.console);
    out(
      `merged ${parts.length} results file${parts.length === 1 ? '' : 's'} (${merged.summary.total} cases)${Object.values(written.files).length ? `; wrote ${Object.values(written.files).join(', ')}` : ''}\n`,
    );
    // A peer loop judged against its pinned verdicts passes when it fails exactly as pinned, as the unsharded run does.
    if (merged.verdicts)
      out(
        renderVerdictComparison(
          merged.verdicts.file,
          merged.loop?.name ?? 'the loop',
          merged.verdicts.differences,
          merged.cases.length,
          20,
          merged.summary.skipped,
          merged.summary.failed,
        ),
      );
    return runPassed(merged) ? EXIT.passed : EXIT.failed;
  } catch (error) {
    if (error instanceof ReportFileError || error instanceof MergeError || error instanceof UnknownReporterError || error instanceof RangeError) {
      throw new UsageError(error.message);
    }
    throw error;
  }
}
