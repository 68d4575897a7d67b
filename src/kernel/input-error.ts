/**
 * An error caused by what a user gave — a path, a flag, a file's content, a
 * config key, a store — not by a bug. Every layer throws its own subclass
 * (config, store, scenario and report file errors); the CLI maps every
 * `InputError` to exit 2 with its one-line message and no stack.
 */
export class InputError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'InputError';
  }
}
