/** `loopgate run`: the definition `--help` reads; the gate itself is loaded when the command runs (run.ts). */
import type { Argv, CommandModule } from 'yargs';
import { REPORTERS } from '../../report/reporters.ts';
import type { RunArgs } from './run.ts';

export const runCommand: CommandModule<object, RunArgs> = {
  command: 'run [paths..]',
  describe: 'Run the gate: state tables, the contract suite on fakes and the bundled scenarios (or the scenario files given)',
  builder: (y: Argv) =>
    y
      .positional('paths', { type: 'string', array: true, describe: 'scenario files or directories (default: everything bundled)' })
      .option('reporter', { type: 'string', array: true, default: [...REPORTERS], describe: `reports to write: ${REPORTERS.join(', ')} (several allowed)` })
      .option('out', { type: 'string', default: 'reports', describe: 'directory for the report files' })
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
    const { run } = await import('./run.ts');
    process.exitCode = await run(args, {
      out: (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`),
      err: (t) => process.stderr.write(t),
      tty: Boolean(process.stderr.isTTY) && !process.env.CI,
      ...(process.stderr.columns ? { columns: process.stderr.columns } : {}),
    });
  },
};
