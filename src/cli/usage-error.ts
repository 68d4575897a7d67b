/** An error in what the user gave us (a path, a flag, a file's content): exit 2 with this message. */
import { InputError } from '../kernel/index.ts';
import { readNumber, type NumberRange } from './arguments.ts';

export class UsageError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * A numeric flag's value (a number, or the text typed) checked against its
 * range, for a command called with arguments the command line did not parse:
 * the same message as the parser's, as a `UsageError`.
 */
export function numberArg(flag: string, value: number | string, range: NumberRange): number {
  const read = readNumber(flag, value, range);
  if ('problem' in read) throw new UsageError(read.problem);
  return read.value;
}
