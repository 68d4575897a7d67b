/** `loopgate fuzz`: the definition `--help` reads; fast-check and the generators are loaded when the command runs (fuzz.ts). */
import type { Argv, CommandModule } from 'yargs';
import { REPORTERS } from '../../report/reporters.ts';
import type { FuzzArgs } from './fuzz.ts';
import { DEFAULT_FUZZ_RUNS } from './fuzz-defaults.ts';

export const fuzzCommand: CommandModule<object, FuzzArgs> = {
  command: 'fuzz',
  describe: 'Fuzz the loop: generated scenarios checked against every invariant; a violation is shrunk to a scenario file',
  builder: (y: Argv) =>
    y
      .option('runs', { type: 'string', describe: `cases to generate (default ${DEFAULT_FUZZ_RUNS}; with --time alone: until the time is up)` })
      .option('seed', { type: 'string', describe: 'fast-check seed (default: random; printed at the end)' })
      .option('time', { type: 'string', describe: 'stop generating after this long, e.g. 30s, 5m (a shrink under way finishes)' })
      .option('path', { type: 'string', describe: "replay fast-check's path to a counterexample (with its --seed)" })
      .option('property', { type: 'string', array: true, describe: 'check only these properties (default: all)' })
      .option('out', { type: 'string', default: 'reports', describe: 'directory for the reports; counterexamples go to OUT/counterexamples/' })
      .option('reporter', { type: 'string', array: true, default: [...REPORTERS], describe: `reports to write: ${REPORTERS.join(', ')}` })
      .option('verbose', { type: 'boolean', default: false, describe: 'list the properties that held too' }) as Argv<FuzzArgs>,
  handler: async (args) => {
    const { fuzz } = await import('./fuzz.ts');
    process.exitCode = await fuzz(args, {
      out: (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`),
      err: (t) => process.stderr.write(t),
      tty: Boolean(process.stderr.isTTY) && !process.env.CI,
    });
  },
};
