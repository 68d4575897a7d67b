/** `loopgate contract`: the definition `--help` reads; the SDKs, msw and nock are loaded when the command runs (contract.ts). */
import type { Argv, CommandModule } from 'yargs';
import { PROVIDER_NAMES } from '../../../providers/names.ts';
import type { ContractArgs } from './contract.ts';

export const contractCommand: CommandModule<object, ContractArgs> = {
  command: 'contract',
  describe: 'Run the ModelClient contract suite per provider: wire fakes by default, or --live / --record DIR / --replay DIR',
  builder: (y: Argv) =>
    y
      .option('provider', { type: 'string', array: true, describe: `provider(s) to check (default: all): ${PROVIDER_NAMES.join(', ')}` })
      .option('live', { type: 'boolean', default: false, describe: 'run the live-capable cases against the real API (needs the API key in the environment)' })
      .option('record', { type: 'string', describe: 'run live and store the exchanges (secrets scrubbed) in this directory' })
      .option('replay', { type: 'string', describe: 'run the live cases offline against the recordings in this directory' })
      .option('model', { type: 'string', describe: 'model for the adapters (default: a small current model per provider)' })
      .option('json', { type: 'boolean', default: false, describe: 'print the reports as JSON' }) as Argv<ContractArgs>,
  handler: async (args) => {
    const { contract } = await import('./contract.ts');
    process.exitCode = await contract(args, {
      out: (text) => process.stdout.write(`${text}\n`),
      err: (text) => process.stderr.write(`${text}\n`),
      env: process.env,
    });
  },
};
