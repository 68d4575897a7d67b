/**
 * `loopgate replay <store-or-file> [--conversation ID] [--at SEQ] [--json]`: the
 * conversation's timeline, or the exact request the model received at a step,
 * recomputed from the log (invariant 1).
 */
import type { Argv, CommandModule } from 'yargs';
import { recomputeRequest, type AnyEvent } from '../../kernel/index.ts';
import { openEvents } from '../event-source.ts';
import { EXIT, UsageError } from '../exit-codes.ts';
import { renderEvent, renderRequest } from '../render-events.ts';

interface ReplayArgs {
  source: string;
  conversation?: string;
  at?: number;
  json?: boolean;
}

/** The request in force at `seq`: the model.request at or before it. */
export function requestAtOrBefore(events: readonly AnyEvent[], seq: number): number | undefined {
  for (let i = Math.min(seq, events.length - 1); i >= 0; i--) if (events[i]!.type === 'model.request') return i;
  return undefined;
}

export async function replay(args: ReplayArgs, out: (line: string) => void): Promise<number> {
  const { conversation, events } = await openEvents(args.source, args.conversation);
  if (args.at === undefined) {
    if (args.json) out(JSON.stringify(events, null, 2));
    else {
      out(`conversation ${conversation}: ${events.length} events`);
      for (const event of events) if (event.type !== 'model.delta') out(renderEvent(event));
    }
    return EXIT.passed;
  }
  if (!Number.isInteger(args.at) || args.at < 0 || args.at >= events.length) {
    throw new UsageError(`--at ${args.at}: conversation ${conversation} has seqs 0..${events.length - 1}`);
  }
  const seq = requestAtOrBefore(events, args.at);
  if (seq === undefined) throw new UsageError(`--at ${args.at}: no model request at or before seq ${args.at}`);
  const request = recomputeRequest(events, seq);
  if (args.json) out(JSON.stringify({ seq, request }, null, 2));
  else {
    out(`request #${seq} (${renderEvent(events[seq]!).trim()}), recomputed from the log:`);
    for (const line of renderRequest(request)) out(line);
  }
  return EXIT.passed;
}

export const replayCommand: CommandModule<object, ReplayArgs> = {
  command: 'replay <source>',
  describe: 'Show a conversation’s timeline, or with --at the exact request the model received',
  builder: (y: Argv) =>
    y
      .positional('source', {
        type: 'string',
        demandOption: true,
        describe:
          'a SQLite store (.db), a PostgreSQL store (postgres://user@host/db[?schema=name]; password via PGPASSWORD) or an events file (.json / .jsonl)',
      })
      .option('conversation', { type: 'string', describe: 'conversation id (needed when the store holds several)' })
      .option('at', { type: 'number', describe: 'a seq: show the model request in force at it' })
      .option('json', { type: 'boolean', default: false, describe: 'print JSON' }) as Argv<ReplayArgs>,
  handler: async (args) => {
    process.exitCode = await replay(args, (line) => process.stdout.write(`${line}\n`));
  },
};
