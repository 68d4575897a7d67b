/** `loopgate check-host`: the definition `--help` reads; the config and the agent are loaded when the command runs (check-host.ts). */
import type { Argv, CommandModule } from 'yargs';
import type { CheckHostArgs } from './check-host.ts';

export const checkHostCommand: CommandModule<object, CheckHostArgs> = {
  command: 'check-host <file>',
  describe: "Check a production host's YAML config against the agent it serves (tool names, keys), opening nothing",
  builder: (y: Argv) =>
    y
      .positional('file', { type: 'string', demandOption: true, describe: 'the host config (YAML)' })
      .option('agent', { type: 'string', describe: "the agent it serves (default: the config's default agent)" })
      .option('config', { type: 'string', describe: 'the loopgate config file (default: loopgate.config.ts found upward from here)' }) as Argv<CheckHostArgs>,
  handler: async (args) => {
    // It loads the config and builds the agent: code under test that may never yield.
    const { startWatchdog } = await import('../watchdog.ts');
    const watchdog = startWatchdog('check');
    try {
      const { checkHost } = await import('./check-host.ts');
      process.exitCode = await checkHost(
        args,
        (line) => process.stdout.write(`${line}\n`),
        (line) => process.stderr.write(`${line}\n`),
      );
    } finally {
      watchdog.stop();
    }
  },
};
