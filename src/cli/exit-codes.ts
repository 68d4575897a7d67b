/** Exit codes, the same for every command. */
import { InputError } from '../kernel/index.ts';

export const EXIT = {
  /** Everything passed. */
  passed: 0,
  /** Failures or regressions. */
  failed: 1,
  /** Usage, config or input errors. */
  usage: 2,
} as const;

/** An error in what the user gave us (a path, a flag, a file's content): exit 2 with this message. */
export class UsageError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
