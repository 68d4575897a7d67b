/** `loopgate replay`: the definition `--help` reads; the stores are loaded when the command runs (replay.ts). */
import type { Argv, CommandModule } from 'yargs';
import { BOUNDS, numberOption } from '../arguments.ts';
import type { ReplayArgs } from './replay.ts';

export const replayCommand: CommandModule<object, ReplayArgs> = {
  command: 'replay <source>',
  describe: 'Show a conversation’s timeline, or with --at the exact request the model received (read-only: the store is never written)',
  builder: (y: Argv) =>
    y
      .positional('source', {
        type: 'string',
        demandOption: true,
        describe:
          'a SQLite store (.db), a PostgreSQL store (postgres://user@host/db[?schema=name]; password via PGPASSWORD) or an events file (.json / .jsonl)',
      })
      .option('conversation', { type: 'string', describe: 'conversation id (needed when the store holds several)' })
      .option('at', numberOption('at', BOUNDS.seq, { describe: 'a seq: show the model request in force at it' }))
      .option('json', { type: 'boolean', default: false, describe: 'print JSON' }) as Argv<ReplayArgs>,
  handler: async (args) => {
    const { replay } = await import('./replay.ts');
    process.exitCode = await replay(args, (line) => process.stdout.write(`${line}\n`));
  },
};
