/**
 * `loopgate decode --provider NAME FILE [--status N]`: runs one recorded
 * response (a JSON body, a `.chunks.txt` file, or raw SSE) through the named
 * adapter over the wire fake, so the real SDK parses it, and prints the
 * normalized result as JSON. For `--provider fake`, FILE holds a normalized
 * result, run through the in-process fake.
 * Exit 0 with a result (whatever it says), 2 for a bad provider, status or file.
 */
import { readFile } from 'node:fs/promises';
import type { Argv, CommandModule } from 'yargs';
import { decodeRecorded } from '../../../providers/decode-recorded.ts';
import { PROVIDER_NAMES, isProviderName } from '../../../providers/names.ts';
import { summarizeResult } from '../../../providers/shared/summary.ts';
import { RecordedBodyError } from '../../../providers/wire-fakes/recorded.ts';
import { EXIT, UsageError } from '../exit-codes.ts';

export interface DecodeArgs {
  provider: string;
  file: string;
  status?: number;
}

export interface DecodeIO {
  out(text: string): void;
  err(text: string): void;
}

export async function decode(args: DecodeArgs, io: DecodeIO): Promise<number> {
  if (!isProviderName(args.provider)) {
    throw new UsageError(`unknown provider "${args.provider}"; known providers: ${PROVIDER_NAMES.join(', ')}`);
  }
  if (args.status !== undefined && !(Number.isInteger(args.status) && args.status >= 100 && args.status <= 599)) {
    throw new UsageError(`--status ${args.status}: expected an HTTP status from 100 to 599`);
  }
  let text: string;
  try {
    text = await readFile(args.file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${args.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let outcome;
  try {
    outcome = await decodeRecorded(args.provider, args.file, text, args.status !== undefined ? { status: args.status } : {});
  } catch (error) {
    if (error instanceof RecordedBodyError) throw new UsageError(`${args.file}: ${error.message}`);
    throw error;
  }
  if (outcome.statusNote) io.err(`loopgate decode: ${outcome.statusNote}`);
  io.out(JSON.stringify(summarizeResult(outcome.result), null, 2));
  return EXIT.passed;
}

export async function runDecodeCommand(args: DecodeArgs, io: DecodeIO): Promise<number> {
  try {
    return await decode(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`loopgate decode: ${error.message}`);
      return EXIT.usage;
    }
    throw error;
  }
}

export const decodeCommand: CommandModule<object, DecodeArgs> = {
  command: 'decode <file>',
  describe: 'Show what loopgate makes of one recorded provider response (JSON body, .chunks.txt or SSE)',
  builder: (y: Argv) =>
    y
      .positional('file', { type: 'string', demandOption: true, describe: 'the recorded response' })
      .option('provider', { type: 'string', demandOption: true, describe: `whose response it is: ${PROVIDER_NAMES.join(', ')}` })
      .option('status', {
        type: 'number',
        describe: 'serve it with this HTTP status (default 200, or the usual status for an error body)',
      }) as Argv<DecodeArgs>,
  handler: async (args) => {
    process.exitCode = await runDecodeCommand(args, {
      out: (text) => process.stdout.write(`${text}\n`),
      err: (text) => process.stderr.write(`${text}\n`),
    });
  },
};
