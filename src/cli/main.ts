/**
 * The `loopgate` command. Exit codes: 0 passed, 1 failures or regressions,
 * 2 usage, config or input errors, 130 interrupted (SIGINT), 143 terminated
 * (SIGTERM).
 *
 * - A bad argument (unknown flag, missing option, wrong positional) stops here,
 *   before any command runs or writes anything.
 * - Every error caused by input is an `InputError`: one line per problem,
 *   naming the input, no stack. Anything else is a bug: `internal error` and
 *   its stack.
 * - Everything printed from data has its control characters escaped, and
 *   everything printed at all passes the redactor (redacted-output.ts).
 * - Nothing heavy loads up front: each command's definition is small and its
 *   handler imports what it needs, so `--help` and `--version` answer at once.
 * - A closed stdout (`loopgate tables | head`) ends the process quietly.
 * - The code under test can neither end the run nor keep the process alive
 *   (guard-process.ts).
 * - SIGINT (Ctrl-C) or SIGTERM ends the command at once with 130 or 143 and one
 *   line saying what it left: `run` leaves no report in its directory, neither a
 *   new one nor one an earlier run wrote that could pass for this run's (interrupt.ts).
 */
import { releaseStarved } from '../harness/never-settled.ts';
import { writeSync } from 'node:fs';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { printableLines } from '../report/terminal-text.ts';
import { ArgumentError, argumentMessage, withCheckedValues } from './arguments.ts';
import { COMMANDS } from './commands.ts';
import { EXIT } from './exit-codes.ts';
import { endQuietlyOnClosedOutput } from './closed-output.ts';
import { guardProcess } from './guard-process.ts';
import { errorLines } from './error-lines.ts';
import { cleanUpAfterInterrupt } from './interrupt.ts';
import { redactOutput, redactOutputAlso } from './redacted-output.ts';
import { createRedactor, REDACTED, secretsFromEnv } from '../kernel/redact/index.ts';
import { VERSION } from './version.ts';

const NO_COMMAND = 'name a command';

/** What yargs refused, in one line that names what was typed. */
function refusal(message: string, argv: readonly string[]): string {
  const words = argv.filter((a) => !a.startsWith('-'));
  const recommended = /^Did you mean (.+)\?$/.exec(message);
  if (recommended) return `Unknown command: ${words[0]}; did you mean ${recommended[1]}?`;
  // yargs checks the positionals before the flags: an unknown flag that took the file as its value was told as no file named.
  if (/^Not enough non-option arguments/.test(message)) {
    const unknown = unknownFlagTakingAValue(argv);
    if (unknown !== undefined) return `Unknown argument: ${unknown.flag} (it took "${unknown.value}" as its value)`;
  }
  // A first word that names no command (and is not near one: yargs recommends that) is a command mistyped, not an argument.
  const unknownWords = /^Unknown arguments?: (.+)$/.exec(message)?.[1]?.split(', ');
  const commands = COMMANDS.map((c) => String(c.command).split(' ')[0]!);
  if (words[0] !== undefined && unknownWords?.includes(words[0]) && !commands.includes(words[0]))
    return `Unknown command: ${words[0]} (the commands: ${commands.join(', ')})`;
  if (message === NO_COMMAND) {
    const flags = argv.filter((a) => a.startsWith('-')).map((a) => a.replace(/^-+/, '').split('=')[0]);
    if (flags.length > 0) return `Unknown argument${flags.length === 1 ? '' : 's'}: ${flags.join(', ')}; ${NO_COMMAND}`;
  }
  return argumentMessage(message);
}

/** The first `--flag value` the command does not know, the value a word that would have been a positional. */
function unknownFlagTakingAValue(argv: readonly string[]): { flag: string; value: string } | undefined {
  const flags = flagsOf(argv);
  const name = flags.find((a) => !a.startsWith('-'));
  const command = COMMANDS.find((c) => String(c.command).split(' ')[0] === name);
  if (command === undefined) return undefined;
  const options = (command.builder as (y: ReturnType<typeof yargs>) => unknown)(yargs([])) as {
    getOptions(): { key: Record<string, unknown>; alias: Record<string, string[]> };
  };
  const table = options.getOptions();
  const known = new Set(['help', 'version', ...Object.keys(table.key), ...Object.values(table.alias).flat()]);
  const isKnown = (flag: string) => known.has(flag) || known.has(flag.replace(/-+([a-z0-9])/g, (_, c: string) => c.toUpperCase()));
  for (let i = 0; i < flags.length - 1; i++) {
    const word = flags[i]!;
    const value = flags[i + 1]!;
    if (!word.startsWith('--') || word.includes('=') || value.startsWith('-')) continue;
    const flag = word.slice(2);
    if (!isKnown(flag) && !(flag.startsWith('no-') && isKnown(flag.slice(3)))) return { flag, value };
  }
  return undefined;
}

/**
 * `--version` answers alone. yargs answers it before it checks anything else, so
 * `loopgate --version --bogus` would print the version and exit 0, the mistyped
 * flag ignored: anything typed with it is refused instead.
 */
function versionWithOthers(argv: readonly string[]): string | undefined {
  if (!flagsOf(argv).includes('--version')) return undefined;
  const others = argv.filter((a) => a !== '--version');
  return others.length === 0 ? undefined : `--version takes nothing else: got ${others.join(' ')}`;
}

/** The flags typed before `--` (after it, words are values). */
function flagsOf(argv: readonly string[]): readonly string[] {
  const end = argv.indexOf('--');
  return end === -1 ? argv : argv.slice(0, end);
}

/**
 * `--help` answers after the rest is checked. yargs answers it before it checks
 * anything, so `loopgate run --help --bogus` printed help and exited 0, the
 * mistyped flag ignored. The words without `--help` are parsed first with every
 * handler a no-op, and what that parse refuses is refused, except what only
 * a run needs (a missing path or command: help is how to learn them).
 */
async function helpWithBadArguments(argv: readonly string[]): Promise<string | undefined> {
  const isHelp = (a: string) => a === '--help';
  if (!flagsOf(argv).some(isHelp)) return undefined;
  const end = argv.indexOf('--');
  const rest = end === -1 ? argv.filter((a) => !isHelp(a)) : [...argv.slice(0, end).filter((a) => !isHelp(a)), ...argv.slice(end)];
  let parser = yargs(rest).scriptName('loopgate');
  for (const command of COMMANDS) parser = parser.command({ ...withCheckedValues(command as never, rest), handler: () => {} } as never);
  parser = parser
    .strict()
    .help(false)
    .version(false)
    .exitProcess(false)
    .fail((message, error) => {
      if (error && error.name !== 'YError' && !(error instanceof ArgumentError)) throw error;
      throw new ArgumentError(error instanceof ArgumentError ? error.message : argumentMessage(message ?? error?.message ?? ''));
    });
  try {
    await parser.parseAsync();
  } catch (error) {
    if (!(error instanceof ArgumentError)) throw error;
    if (/^(Not enough non-option arguments|Missing required argument)/.test(error.message)) return undefined;
    return error.message;
  }
  return undefined;
}

/** A bug of loopgate's own: said with its stack (through the output's redactor), never as an input error. */
function tellInternalError(error: unknown): void {
  process.stderr.write(`loopgate: internal error: ${printableLines((error as Error)?.stack ?? String(error))}\n`);
}

/**
 * What a throw during the command's setup says: through a redactor of its own, as the output's may not be set up
 * (or may be what broke); if no redactor can be built, the environment's secrets are cut out by hand; if even
 * that fails, only the error's name is told.
 */
function startErrorText(error: unknown): string {
  const text = (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).split('\n')[0] ?? '';
  try {
    return createRedactor({ secrets: secretsFromEnv(process.env) })(text);
  } catch {
    try {
      return secretsFromEnv(process.env).reduce((out, secret) => out.split(secret).join(REDACTED), text);
    } catch {
      return `${error instanceof Error ? error.name : typeof error} (its message is not printed: no redactor could be built)`;
    }
  }
}

export async function main(argv: string[]): Promise<number> {
  const badWithHelp = await helpWithBadArguments(argv);
  if (badWithHelp !== undefined) {
    process.stderr.write(errorLines(badWithHelp.startsWith('--') ? badWithHelp : `${badWithHelp} (see loopgate --help)`));
    return EXIT.usage;
  }
  const refused = versionWithOthers(argv);
  if (refused !== undefined) {
    process.stderr.write(errorLines(refused));
    return EXIT.usage;
  }
  let parser = yargs(argv).scriptName('loopgate').usage('$0 <command> [options]');
  for (const command of COMMANDS) parser = parser.command(withCheckedValues(command as never, argv) as never);
  parser = parser
    .demandCommand(1, NO_COMMAND)
    .recommendCommands()
    .strict()
    .help()
    .version(VERSION)
    // --help and --version answer and return: only loopgate ends its process (guard-process.ts).
    .exitProcess(false)
    .fail((message, error) => {
      // Throwing stops yargs here: the command's handler never runs. yargs' own
      // complaints (and what a flag's check threw, which yargs wraps) are argument errors.
      if (error && error.name !== 'YError') throw error;
      throw new ArgumentError(refusal(message ?? error?.message ?? '', argv));
    });
  try {
    await parser.parseAsync();
  } catch (error) {
    if (error instanceof ArgumentError) {
      // A message that starts by naming the flag says what to fix; the others point at --help.
      process.stderr.write(errorLines(error.message.startsWith('--') ? error.message : `${error.message} (see loopgate --help)`));
      return EXIT.usage;
    }
    // The kernel (and so InputError) loads only when something went wrong.
    const { InputError } = await import('../kernel/index.ts');
    if (error instanceof InputError) {
      // A scenario file's own secrets, which a line of its refusal may name (its file name, a tool, an id): redacted too.
      const secrets = (error as { secrets?: unknown }).secrets;
      if (Array.isArray(secrets)) redactOutputAlso(secrets.filter((s): s is string => typeof s === 'string'));
      process.stderr.write(errorLines(error.message));
      return EXIT.usage;
    }
    // A report that would tell another verdict than the run (report/verify.ts): nothing was written; the run is not certified.
    if ((error as Error)?.name === 'ReportDisagreesError') {
      process.stderr.write(errorLines((error as Error).message));
      return EXIT.failed;
    }
    tellInternalError(error);
    return EXIT.usage;
  }
  return (process.exitCode as number | undefined) ?? EXIT.passed;
}

const guard = guardProcess();
/** Set once the command has its exit code and lets the event loop empty. */
let finishing = false;
// The guard keeps an uncaught exception as a stray of the code under test: a throw while the command sets itself up,
// left to it, was never told, and the process, with nothing left to run, ended 0 — a run that passed having run
// nothing (mutation seed 36). Said here, straight to the descriptor (the output's redactor may be what broke), and 2.
try {
  endQuietlyOnClosedOutput(process.stdout, guard.exitNow);
  endQuietlyOnClosedOutput(process.stderr, guard.exitNow);
  redactOutput(process.stdout);
  redactOutput(process.stderr);
  for (const [signal, code] of [
    ['SIGINT', EXIT.interrupted],
    ['SIGTERM', EXIT.terminated],
  ] as const) {
    process.once(signal, () => {
      const left = cleanUpAfterInterrupt();
      process.stderr.write(errorLines(`interrupted (${signal})${left ? `: ${left}` : ''}`));
      guard.exitNow(code);
    });
  }
  // The event loop emptied with the command still waiting: something it awaits (a promise of the code under
  // test: an agent factory, a tool, a hook) never settles. Node would end with exit 13 and a warning; say so, exit 2.
  // (A more precise message already given — a config whose top-level await never settles — is kept.)
  process.on('beforeExit', () => {
    // The command has finished and is ending by an emptied event loop (below): nothing waits.
    if (finishing) return;
    // A case starved so fails, naming itself, and the run goes on to its report (harness/never-settled.ts).
    if (releaseStarved()) return;
    setImmediate(() => {
      if (process.exitCode !== EXIT.usage) {
        process.stderr.write(
          errorLines(
            'the command cannot finish: it waits on a promise that never settles, and nothing is left to run — an agent factory, tool, hook or config export of the code under test that never resolves or rejects',
          ),
        );
      }
      guard.exitNow(EXIT.usage);
    });
  });
} catch (error) {
  writeSync(2, errorLines(`could not start: ${startErrorText(error)}`));
  guard.exitNow(EXIT.usage);
}
let code: number;
try {
  code = await main(hideBin(process.argv));
} catch (error) {
  // main catches what its commands throw; a throw of its own (writing a refusal, say) is a bug of loopgate's,
  // told as one — left to the guard it was kept as a stray and read as a promise that never settles.
  tellInternalError(error);
  code = EXIT.usage;
}
const strays = guard.strays();
if (strays.length > 0) {
  process.stderr.write(errorLines(strays.join('\n')));
  if (code === EXIT.passed) code = EXIT.failed; // a run whose code under test broke outside the cases has not passed
}
// The command ends by an emptied event loop, not process.exit: V8 may have background jobs (a Maglev compile)
// parked waiting on the main thread for a garbage collection, and process.exit then joins them and deadlocks Node 24
// for good (every thread parked, SIGTERM unheard; gdb: NodePlatform::Shutdown joining a worker thread in
// AwaitCollectionBackground — seen again in CI after one turn of the event loop was given first). An emptied loop
// disposes the isolate before the platform, which releases them. What the code under test left running (a socket,
// a server, a child) is unref'd; whatever still holds the loop a second later (a timer of its own) meets
// process.exit, as before.
finishing = true;
process.exitCode = code;
for (const handle of (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles()) (handle as { unref?: () => void } | null)?.unref?.();
setTimeout(() => guard.exitNow(code), 1_000).unref();
