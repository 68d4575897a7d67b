/** `loopgate tables`: the definition `--help` reads; the loop and its fixtures are loaded when the command runs (tables.ts). */
import type { Argv, CommandModule } from 'yargs';
import { BOUNDS, numberOption } from '../arguments.ts';
import type { TablesArgs } from './tables.ts';

export const tablesCommand: CommandModule<object, TablesArgs> = {
  command: 'tables',
  describe: 'Show the loop’s state table, running every possible cell’s fixture',
  builder: (y: Argv) =>
    y
      .option('markdown', { type: 'boolean', default: false, describe: 'print a Markdown table' })
      .option('seed', numberOption('seed', BOUNDS.seed, { default: 1, describe: 'seed for the cells’ fixtures' })) as Argv<TablesArgs>,
  handler: async (args) => {
    const { tables } = await import('./tables.ts');
    process.exitCode = await tables(args, (line) => process.stdout.write(`${line}\n`));
  },
};
