import { InputError } from '../input-error.ts';

/** Why an append was refused: the field (a JSON path) and the reason. */
export class LogAppendError extends Error {
  readonly field: string;
  readonly reason: string;
  constructor(field: string, reason: string) {
    super(`cannot append event: ${field}: ${reason}`);
    this.name = 'LogAppendError';
    this.field = field;
    this.reason = reason;
  }
}

/** Why records read back from a store cannot be trusted. Names the record. Bad data given to a reader: an `InputError`. */
export class LogReadError extends InputError {
  readonly seq: number | undefined;
  constructor(where: string, seq: number | undefined, reason: string) {
    super(`${where}${seq === undefined ? '' : ` record seq ${seq}`}: ${reason}`);
    this.name = 'LogReadError';
    this.seq = seq;
  }
}
