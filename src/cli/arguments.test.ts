/** Command-line values checked as they are parsed: every single-value flag of every command, given twice, is one line naming it. */
import yargs, { type Argv } from 'yargs';
import { describe, expect, it } from 'vitest';
import { ArgumentError, withCheckedValues } from './arguments.ts';
import { COMMANDS } from './commands.ts';

/** What parsing `argv` throws (as main's parser does), or undefined; no command's handler runs. */
async function refusal(argv: string[]): Promise<string | undefined> {
  let parser = yargs(argv)
    .exitProcess(false)
    .strict()
    .fail((message, error) => {
      if (error && error.name !== 'YError') throw error;
      throw new ArgumentError(message ?? error?.message ?? '');
    });
  for (const command of COMMANDS) parser = parser.command(withCheckedValues({ ...command, handler: () => {} } as never, argv) as never);
  try {
    await parser.parseAsync();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

interface Table {
  key: Record<string, boolean>;
  boolean: string[];
  array: string[];
  demandedOptions: Record<string, unknown>;
}

/** Each command's name, its demanded positionals and its flags that take one value. */
const FLAGS = COMMANDS.map((command) => {
  const built = (command.builder as (y: Argv) => Argv)(yargs([]));
  const table = (built as unknown as { getOptions(): Table }).getOptions();
  const text = String(command.command);
  const name = text.split(' ')[0]!;
  const positionals = [...text.matchAll(/<([^>.]+)(\.\.)?>/g)].map(() => 'x');
  const skip = new Set([...text.matchAll(/[<[]([^\s<>[\].]+)(?:\.\.)?[>\]]/g)].map((m) => m[1]!));
  const single = Object.keys(table.key).filter(
    (k) => !table.boolean.includes(k) && !table.array.includes(k) && !skip.has(k) && k !== 'help' && k !== 'version' && !/[A-Z]/.test(k),
  );
  const demanded = Object.keys(table.demandedOptions ?? {}).filter((k) => !skip.has(k));
  return { name, positionals, single, demanded };
});

describe('a single-value flag given twice', () => {
  it('covers every command', () => {
    expect(FLAGS.map((f) => f.name).sort()).toEqual(['check-host', 'contract', 'decode', 'fuzz', 'merge-reports', 'replay', 'run', 'tables']);
    expect(FLAGS.find((f) => f.name === 'run')!.single).toEqual(expect.arrayContaining(['host', 'seed', 'config', 'grep']));
  });

  for (const { name, positionals, single, demanded } of FLAGS) {
    it(`${name}: each is "--FLAG: given 2 times; give it once"`, async () => {
      for (const flag of single) {
        const others = demanded.filter((d) => d !== flag).flatMap((d) => [`--${d}`, '1']);
        const message = await refusal([name, ...positionals, ...others, `--${flag}`, '1', `--${flag}`, '2']);
        expect(message, `${name} --${flag}`).toBe(`--${flag}: given 2 times; give it once`);
      }
    });
  }
});
