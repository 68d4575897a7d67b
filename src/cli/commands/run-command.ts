/** `loopgate run`: the definition `--help` reads; the gate itself is loaded when the command runs (run.ts). */
import type { Argv, CommandModule } from 'yargs';
import { BOUNDS, numberOption } from '../arguments.ts';
import { REPORTERS } from '../../report/reporters.ts';
import type { RunArgs } from './run.ts';
import { underCi } from '../../harness/ci.ts';

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
      .option('require', {
        type: 'string',
        array: true,
        // One pattern per --require: the paths after it stay paths.
        nargs: 1,
        describe:
          'cases whose id or title matches this regular expression must run: one the run skips fails it, saying why (e.g. contract:store/postgres where production runs on PostgreSQL)',
      })
      .option('host', {
        type: 'string',
        describe:
          "the hosts scenarios run through: loop (the loop directly), production (a real AgentHost), or both (default: the config's host, else both). A scenario's own host: wins",
      })
      .option('loop', {
        type: 'string',
        describe:
          "the loop your agents run in: loopgate (default), ai-sdk (Vercel AI SDK generateText) or openai-agents (OpenAI Agents run); a peer runs the scenarios and table cells it can, the rest skipped with the reason (default: the config's loop)",
      })
      .option('concurrency', numberOption('concurrency', BOUNDS.concurrency, { describe: 'cases run at once (default: the number of CPUs)' }))
      .option('shard', { type: 'string', describe: 'run shard i of n (i/n); merge the shards with merge-reports' })
      .option('seed', numberOption('seed', BOUNDS.seed, { default: 1, describe: 'seed for everything random in the cases' }))
      .option('baseline', { type: 'string', describe: 'fail on regressions against this baseline file' })
      .option('update-baseline', { type: 'boolean', default: false, describe: 'write this run as the new baseline (to --baseline FILE)' })
      .option('verdicts', {
        type: 'boolean',
        default: true,
        describe:
          'with a peer loop whose verdicts the config pins (verdicts:): pass when it fails exactly as pinned, fail on any difference; --no-verdicts judges it on its own (exit 1 on any failure)',
      })
      .option('update-verdicts', {
        type: 'boolean',
        default: false,
        describe: "with --loop ai-sdk|openai-agents: record this whole run as the loop's pinned verdicts (the file the config's verdicts: names)",
      })
      .option('live', { type: 'boolean', default: false, describe: 'run the live scenarios against a real provider (API key from the environment)' })
      .option('provider', { type: 'string', describe: 'for --live: anthropic, openai-chat or openai-responses' })
      .option('repeat', numberOption('repeat', BOUNDS.repeat, { default: 1, describe: 'for --live: runs per scenario; its pass rate decides' }))
      .option('update', {
        type: 'boolean',
        default: false,
        describe:
          'rewrite the outcome, history, last-request, system and trace expectations (turns.N too) of the scenarios run from what they did (cases whose invariants hold; comments kept)',
      })
      .option('verbose', { type: 'boolean', default: false, describe: 'list passed cases too' }) as Argv<RunArgs>,
  handler: async (args) => {
    const { startWatchdog } = await import('../watchdog.ts');
    const watchdog = startWatchdog('run');
    const { run } = await import('./run.ts');
    process.exitCode = await run(args, {
      activity: watchdog,
      out: (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`),
      err: (t) => process.stderr.write(t),
      tty: Boolean(process.stderr.isTTY) && !underCi(process.env),
      ...(process.stderr.columns ? { columns: process.stderr.columns } : {}),
    });
    watchdog.stop();
  },
};
