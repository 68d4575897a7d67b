/** `loopgate decode`: the definition `--help` reads; the SDKs and the wire fake are loaded when the command runs (decode.ts). */
import type { Argv, CommandModule } from 'yargs';
import { BOUNDS, numberOption } from '../arguments.ts';
import { PROVIDER_NAMES } from '../../../providers/names.ts';
import type { DecodeArgs } from './decode.ts';

export const decodeCommand: CommandModule<object, DecodeArgs> = {
  command: 'decode <file>',
  describe: 'Show what loopgate makes of one recorded provider response (JSON body, .chunks.txt or SSE)',
  builder: (y: Argv) =>
    y
      .positional('file', { type: 'string', demandOption: true, describe: 'the recorded response' })
      .option('provider', { type: 'string', demandOption: true, describe: `whose response it is: ${PROVIDER_NAMES.join(', ')}` })
      .option(
        'status',
        numberOption('status', BOUNDS.httpStatus, { describe: 'serve it with this HTTP status (default 200, or the usual status for an error body)' }),
      )
      .option(
        'timeout',
        numberOption('timeout', BOUNDS.seconds, {
          describe: 'give up after this many seconds (default: no limit; a large recording takes as long as it takes)',
        }),
      ) as Argv<DecodeArgs>,
  handler: async (args) => {
    const { decode } = await import('./decode.ts');
    process.exitCode = await decode(args, {
      out: (text) => process.stdout.write(`${text}\n`),
      err: (text) => process.stderr.write(`${text}\n`),
    });
  },
};
