/** `loopgate fuzz`: the definition `--help` reads; fast-check and the generators are loaded when the command runs (fuzz.ts). */
import type { Argv, CommandModule } from 'yargs';
import { BOUNDS, numberOption } from '../arguments.ts';
import { REPORTERS } from '../../report/reporters.ts';
import type { FuzzArgs } from './fuzz.ts';
import { DEFAULT_FUZZ_RUNS } from './fuzz-defaults.ts';
import { underCi } from '../../harness/ci.ts';

export const fuzzCommand: CommandModule<object, FuzzArgs> = {
  command: 'fuzz',
  describe: 'Fuzz the loop: generated scenarios checked against every invariant; a violation is shrunk to a scenario file',
  builder: (y: Argv) =>
    y
      .option(
        'runs',
        numberOption('runs', BOUNDS.fuzzRuns, { describe: `cases to generate (default ${DEFAULT_FUZZ_RUNS}; with --time alone: until the time is up)` }),
      )
      .option('seed', numberOption('seed', BOUNDS.seed, { describe: 'fast-check seed (default: random; printed at the end)' }))
      .option('time', { type: 'string', describe: 'stop generating after this long, e.g. 30s, 5m, at most 24h (a shrink under way finishes)' })
      .option('path', { type: 'string', describe: "replay fast-check's path to a counterexample (with its --seed)" })
      .option('invariant', { type: 'string', array: true, describe: 'check only these invariants, by id (default: all)' })
      .option('config', { type: 'string', describe: 'the loopgate config file (default: loopgate.config.ts found upward from here; else the bundled suite)' })
      .option('agent', {
        type: 'string',
        describe: "the agent to fuzz (default: the config's fuzz.agent, else its default agent; needed when the config has several agents and neither)",
      })
      .option('loop', {
        type: 'string',
        describe:
          "the loop to fuzz: loopgate, ai-sdk or openai-agents (default: the config's loop — a team's own behind the port too — else loopgate); a loop behind the port gets only what it declares it can do, judged from outside",
      })
      .option('out', {
        type: 'string',
        describe: "directory for the reports; counterexamples go to OUT/counterexamples/ (default: the config's out, else reports)",
      })
      .option('reporter', { type: 'string', array: true, describe: `reports to write: ${REPORTERS.join(', ')} (default: the config's, else all)` })
      .option('verbose', { type: 'boolean', default: false, describe: 'list the invariants that held too' }) as Argv<FuzzArgs>,
  handler: async (args) => {
    const { startWatchdog } = await import('../watchdog.ts');
    const watchdog = startWatchdog('fuzz');
    const { fuzz } = await import('./fuzz.ts');
    process.exitCode = await fuzz(args, {
      activity: watchdog,
      out: (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`),
      err: (t) => process.stderr.write(t),
      tty: Boolean(process.stderr.isTTY) && !underCi(process.env),
    });
    watchdog.stop();
  },
};
