/** An error in what the user gave us (a path, a flag, a file's content): exit 2 with this message. */
import { InputError } from '../kernel/index.ts';

export class UsageError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
