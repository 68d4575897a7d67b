/** A problem in a loopgate config file (or in finding one): exit 2, naming the file and the key. */
import { InputError } from '../kernel/index.ts';

export class ConfigFileError extends InputError {
  /** Secrets the config's agents declare, which a line of the message may hold: whoever prints it redacts them. */
  readonly secrets?: readonly string[];
  constructor(message: string, options?: ErrorOptions & { readonly secrets?: readonly string[] }) {
    super(message, options);
    this.name = 'ConfigFileError';
    if (options?.secrets?.length) this.secrets = options.secrets;
  }
}
