/**
 * The `loopgate` command. Exit codes: 0 passed, 1 failures or regressions,
 * 2 usage, config or input errors.
 */
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { contractCommand } from './commands/contract.ts';
import { decodeCommand } from './commands/decode.ts';
import { fuzzCommand } from './commands/fuzz.ts';
import { mergeReportsCommand } from './commands/merge-reports.ts';
import { replayCommand } from './commands/replay.ts';
import { runCommand } from './commands/run.ts';
import { tablesCommand } from './commands/tables.ts';
import { InputError } from '../kernel/index.ts';
import { EXIT } from './exit-codes.ts';

export async function main(argv: string[]): Promise<number> {
  let code: number = EXIT.passed;
  const parser = yargs(argv)
    .scriptName('loopgate')
    .usage('$0 <command> [options]')
    .command(runCommand as never)
    .command(tablesCommand as never)
    .command(contractCommand as never)
    .command(decodeCommand as never)
    .command(replayCommand as never)
    .command(mergeReportsCommand as never)
    .command(fuzzCommand as never)
    .demandCommand(1, 'name a command (see --help)')
    .strict()
    .help()
    .version(false)
    .fail((message, error) => {
      if (error) throw error; // reported once, below
      process.stderr.write(`loopgate: ${message}\n`);
      code = EXIT.usage;
    });
  try {
    await parser.parseAsync();
  } catch (error) {
    if (error instanceof InputError) {
      process.stderr.write(`loopgate: ${error.message}\n`);
      return EXIT.usage;
    }
    process.stderr.write(`loopgate: internal error: ${(error as Error).stack ?? String(error)}\n`);
    return EXIT.usage;
  }
  return code !== EXIT.passed ? code : ((process.exitCode as number | undefined) ?? EXIT.passed);
}

process.exitCode = await main(hideBin(process.argv));
