/** A problem in a loopgate config file (or in finding one): exit 2, naming the file and the key. */
import { InputError } from '../kernel/index.ts';

export class ConfigFileError extends InputError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ConfigFileError';
  }
}
