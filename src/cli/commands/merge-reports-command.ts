/** `loopgate merge-reports`: the definition `--help` reads; the reporters are loaded when the command runs (merge-reports.ts). */
import type { Argv, CommandModule } from 'yargs';
import { BOUNDS, numberOption } from '../arguments.ts';
import { REPORTERS } from '../../report/reporters.ts';
import type { MergeReportsArgs } from './merge-reports.ts';

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
      .option(
        'steps-threshold',
        numberOption('steps-threshold', BOUNDS.threshold, { describe: 'relative increase of steps tolerated against the baseline (default 0.2)' }),
      )
      .option(
        'tokens-threshold',
        numberOption('tokens-threshold', BOUNDS.threshold, { describe: 'relative increase of tokens tolerated against the baseline (default 0.2)' }),
      )
      .option(
        'cost-threshold',
        numberOption('cost-threshold', BOUNDS.threshold, { describe: 'relative increase of cost tolerated against the baseline (default 0.2)' }),
      )
      .option('verbose', { type: 'boolean', default: false, describe: 'list passed cases in the console report too' }) as unknown as Argv<MergeReportsArgs>,
  handler: async (args) => {
    const { mergeReports } = await import('./merge-reports.ts');
    process.exitCode = await mergeReports(args, (text) => process.stdout.write(text));
  },
};
