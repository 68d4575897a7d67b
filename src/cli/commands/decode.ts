/**
 * `loopgate decode --provider NAME FILE [--status N]`: runs one recorded
 * response (a JSON body, a `.chunks.txt` file, or raw SSE) through the named
 * adapter over the wire fake, so the real SDK parses it, and prints the
 * normalized result as JSON. For `--provider fake`, FILE holds a normalized
 * result, run through the in-process fake.
 * Exit 0 with a result (whatever it says), 2 for a bad provider, status or file.
 * No time limit unless `--timeout` sets one: a large recording takes as long as
 * the SDK needs to parse it.
 */
import { decodeRecorded } from '../../../providers/decode-recorded.ts';
import { PROVIDER_NAMES, isProviderName } from '../../../providers/names.ts';
import { summarizeResult } from '../../../providers/shared/summary.ts';
import { RecordedBodyError } from '../../../providers/wire-fakes/recorded.ts';
import { INPUT_LIMITS, readInputFile } from '../../files/index.ts';
import { InputError } from '../../kernel/index.ts';
import { jsonForTerminal, printable } from '../../report/terminal-text.ts';
import { EXIT } from '../exit-codes.ts';
import { BOUNDS } from '../arguments.ts';
import { numberArg, UsageError } from '../usage-error.ts';

export interface DecodeArgs {
  provider: string;
  file: string;
  status?: number;
  /** Seconds; none by default. */
  timeout?: number;
}

export interface DecodeIO {
  out(text: string): void;
  err(text: string): void;
}

export async function decode(args: DecodeArgs, io: DecodeIO): Promise<number> {
  if (!isProviderName(args.provider)) {
    throw new UsageError(`unknown provider "${args.provider}"; known providers: ${PROVIDER_NAMES.join(', ')}`);
  }
  if (args.status !== undefined) numberArg('status', args.status, BOUNDS.httpStatus);
  if (args.timeout !== undefined) numberArg('timeout', args.timeout, BOUNDS.seconds);
  const text = readInputFile(args.file, { what: 'recorded response', maxBytes: INPUT_LIMITS.recordingBytes });
  let outcome;
  try {
    outcome = await decodeRecorded(args.provider, args.file, text, {
      ...(args.status !== undefined ? { status: args.status } : {}),
      ...(args.timeout !== undefined ? { timeoutMs: Math.round(args.timeout * 1000) } : {}),
    });
  } catch (error) {
    if (error instanceof RecordedBodyError) throw new UsageError(`${args.file}: ${printable(error.message)}`);
    throw error;
  }
  if (outcome.statusNote) io.err(`loopgate decode: ${outcome.statusNote}`);
  io.out(jsonForTerminal(summarizeResult(outcome.result), 2));
  return EXIT.passed;
}

export async function runDecodeCommand(args: DecodeArgs, io: DecodeIO): Promise<number> {
  try {
    return await decode(args, io);
  } catch (error) {
    if (error instanceof InputError) {
      io.err(`loopgate decode: ${printable(error.message)}`);
      return EXIT.usage;
    }
    throw error;
  }
}
