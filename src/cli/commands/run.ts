/**
 * `loopgate run [paths..]`: the pre-release regression gate. It reads
 * `loopgate.config.ts` (found upward from the working directory, or `--config`)
 * for the agents, scenarios and invariants, and runs the config's scenarios, or
 * the scenario files given. With no config of the user's it runs everything
 * bundled: the state-table fixtures, the provider contract suite on the fakes and
 * the example agent's scenarios. Writes the reports; exit 0 all passed, 1
 * failures or regressions — or nothing checked — 2 bad input.
 */
import { availableParallelism } from 'node:os';
import type { Argv, CommandModule } from 'yargs';
import { tableCases } from '../../../state-tables/cell-case.ts';
import type { Case } from '../../harness/cases.ts';
import { contractCases } from '../../harness/contract-cases.ts';
import { runCases, selectCases } from '../../harness/runner.ts';
import { ScenarioFileError } from '../../harness/scenario/load.ts';
import { defaultCases, loadSuiteScenarios, scenarioCasesFrom, suiteInvariants, type SuiteContext } from '../../harness/suites.ts';
import { loadConfig, type ResolvedConfig } from '../../config/load-config.ts';
import { liveCases, type LiveOptions } from '../../harness/live.ts';
import { compareWithBaseline, readBaselineFile, writeBaselineFile } from '../../report/baseline.ts';
import { createProgress } from '../../report/progress.ts';
import { RESULTS_SCHEMA, summarize, type RunResults } from '../../report/results.ts';
import { parseReporters, REPORTERS, UnknownReporterError, writeReports } from '../../report/write.ts';
import { EXIT, UsageError } from '../exit-codes.ts';
import { VERSION } from '../version.ts';

export interface RunArgs {
  paths?: string[];
  config?: string;
  /** Default: the config's reporters, else all. */
  reporter?: string[];
  /** Default: the config's `out`, else reports/. */
  out?: string;
  grep?: string;
  concurrency?: number;
  shard?: string;
  seed: number;
  baseline?: string;
  updateBaseline?: boolean;
  live?: boolean;
  provider?: string;
  repeat: number;
  verbose?: boolean;
}

export function parseShard(text: string): { index: number; total: number } {
  const match = /^(\d+)\/(\d+)$/.exec(text);
  if (!match) throw new UsageError(`--shard ${text}: expected i/n, e.g. 1/2`);
  const index = Number(match[1]);
  const total = Number(match[2]);
  if (total < 1 || index < 1 || index > total) throw new UsageError(`--shard ${text}: i must be between 1 and n (n ≥ 1)`);
  return { index, total };
}

export function parseGrep(text: string): RegExp {
  try {
    return new RegExp(text);
  } catch (error) {
    throw new UsageError(`--grep ${JSON.stringify(text)}: not a regular expression: ${(error as Error).message}`);
  }
}

/** The cases this run may take, from the config (or the paths given), checked before anything runs. */
async function collect(args: RunArgs, config: ResolvedConfig): Promise<Case[]> {
  const given = args.paths && args.paths.length > 0;
  const context: SuiteContext = {
    registry: config.registry,
    invariants: suiteInvariants(config.invariants),
    // Ids are relative to the config's folder; paths given without a config of the user's, to the working directory.
    root: config.bundled && given ? process.cwd() : config.root,
  };
  const paths = given ? args.paths! : config.scenarios;
  try {
    if (args.live) return liveCases(liveOptions(args, await loadSuiteScenarios(paths, context), context));
    if (config.bundled && !given)
      return await defaultCases({ tables: tableCases, contract: contractCases, scenarios: () => scenarioCasesFrom(paths, context) });
    return await scenarioCasesFrom(paths, context);
  } catch (error) {
    if (error instanceof ScenarioFileError) throw new UsageError(`invalid scenario file(s):\n${error.message}`);
    throw error;
  }
}

function liveOptions(args: RunArgs, scenarios: LiveOptions['scenarios'], context: SuiteContext): LiveOptions {
  if (!args.provider) throw new UsageError('--live needs --provider anthropic|openai-chat|openai-responses');
  return { provider: args.provider, repeat: args.repeat, scenarios, context, env: process.env };
}

export async function run(args: RunArgs, io: { out: (text: string) => void; err: (text: string) => void; tty: boolean; columns?: number }): Promise<number> {
  if (!Number.isInteger(args.seed) || args.seed < 0 || args.seed > 0xffffffff)
    throw new UsageError(`--seed ${String(args.seed)}: expected an integer from 0 to 4294967295`);
  if (args.concurrency !== undefined && (!Number.isInteger(args.concurrency) || args.concurrency < 1))
    throw new UsageError(`--concurrency ${String(args.concurrency)}: expected a positive integer`);
  if (!Number.isInteger(args.repeat) || args.repeat < 1) throw new UsageError(`--repeat ${String(args.repeat)}: expected a positive integer`);
  const config = await loadConfig({ path: args.config });
  const out = args.out ?? config.out ?? 'reports';
  let reporters;
  try {
    reporters = parseReporters(args.reporter ?? config.reporters ?? [...REPORTERS]);
  } catch (error) {
    if (error instanceof UnknownReporterError) throw new UsageError(error.message);
    throw error;
  }
  const shard = args.shard !== undefined ? parseShard(args.shard) : undefined;
  const grep = args.grep !== undefined ? parseGrep(args.grep) : undefined;
  const baseline =
    args.baseline && !args.updateBaseline
      ? await readBaselineFile(args.baseline).catch((error: Error) => {
          throw new UsageError(error.message);
        })
      : undefined;
  if (args.updateBaseline && !args.baseline) throw new UsageError('--update-baseline needs --baseline FILE (where to write it)');
  if (args.updateBaseline && (shard || grep))
    throw new UsageError('--update-baseline with --shard or --grep would write a partial baseline; update it from an unsharded run of everything');

  const all = await collect(args, config);
  const cases = selectCases(all, { ...(grep ? { grep } : {}), ...(shard ? { shard } : {}) });
  if (cases.length === 0) {
    // A gate that checked nothing has not passed.
    const where = args.paths && args.paths.length > 0 ? args.paths.join(', ') : `the scenarios of ${config.file}`;
    io.err(
      grep
        ? `loopgate: nothing was checked: --grep ${args.grep} matches none of the ${all.length} case(s)\n`
        : `loopgate: nothing was checked: no scenario files under ${where}\n`,
    );
    return EXIT.failed;
  }

  const startedAt = new Date();
  const progress = createProgress({ tty: io.tty, write: io.err, total: cases.length, ...(io.columns ? { columns: io.columns } : {}) });
  const results = await runCases(cases, {
    seed: args.seed,
    concurrency: args.concurrency ?? Math.max(1, availableParallelism()),
    onStart: (c) => progress.start(c.id),
    onResult: (r) => progress.finish(r),
  });
  progress.done();
  const finishedAt = new Date();

  let runResults: RunResults = {
    schema: RESULTS_SCHEMA,
    tool: { name: 'loopgate', version: VERSION },
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: finishedAt.getTime() - startedAt.getTime(),
    seed: args.seed,
    ...(shard ? { shard } : {}),
    summary: summarize(results),
    cases: results,
  };
  // A partial run (grep, shard) cannot tell a missing case from one it did not select.
  if (baseline) runResults = { ...runResults, regressions: compareWithBaseline(runResults, baseline, { reportMissing: !shard && !grep }) };

  const written = await writeReports(runResults, {
    reporters,
    outDir: out,
    console: { verbose: args.verbose ?? false, ...(io.columns ? { width: io.columns } : {}) },
  });
  if (written.console) io.out(written.console);
  for (const path of Object.values(written.files)) io.err(`wrote ${path}\n`);
  if (args.updateBaseline && args.baseline) {
    await writeBaselineFile(args.baseline, runResults);
    io.err(`baseline updated: ${args.baseline}\n`);
  }
  const regressions = runResults.regressions?.length ?? 0;
  if (runResults.summary.failed > 0 || regressions > 0) return EXIT.failed;
  if (runResults.summary.passed === 0) {
    io.err(`loopgate: nothing was checked: all ${runResults.summary.total} case(s) were skipped\n`);
    return EXIT.failed;
  }
  return EXIT.passed;
}

export const runCommand: CommandModule<object, RunArgs> = {
  command: 'run [paths..]',
  describe: "Run the gate: your config's scenarios (or the files given); without a config, everything bundled",
  builder: (y: Argv) =>
    y
      .positional('paths', { type: 'string', array: true, describe: "scenario files or directories (default: the config's scenarios)" })
      .option('config', { type: 'string', describe: 'the loopgate config file (default: loopgate.config.ts found upward from here; else the bundled suite)' })
      .option('reporter', { type: 'string', array: true, describe: `reports to write: ${REPORTERS.join(', ')} (default: the config's, else all)` })
      .option('out', { type: 'string', describe: "directory for the report files (default: the config's out, else reports)" })
      .option('grep', { type: 'string', describe: 'only cases whose id or title matches this regular expression' })
      .option('concurrency', { type: 'number', describe: 'cases run at once (default: the number of CPUs)' })
      .option('shard', { type: 'string', describe: 'run shard i of n (i/n); merge the shards with merge-reports' })
      .option('seed', { type: 'number', default: 1, describe: 'seed for everything random in the cases' })
      .option('baseline', { type: 'string', describe: 'fail on regressions against this baseline file' })
      .option('update-baseline', { type: 'boolean', default: false, describe: 'write this run as the new baseline (to --baseline FILE)' })
      .option('live', { type: 'boolean', default: false, describe: 'run the live scenarios against a real provider (API key from the environment)' })
      .option('provider', { type: 'string', describe: 'for --live: anthropic, openai-chat or openai-responses' })
      .option('repeat', { type: 'number', default: 1, describe: 'for --live: runs per scenario; its pass rate decides' })
      .option('verbose', { type: 'boolean', default: false, describe: 'list passed cases too' }) as Argv<RunArgs>,
  handler: async (args) => {
    process.exitCode = await run(args, {
      out: (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`),
      err: (t) => process.stderr.write(t),
      tty: Boolean(process.stderr.isTTY) && !process.env.CI,
      ...(process.stderr.columns ? { columns: process.stderr.columns } : {}),
    });
  },
};
