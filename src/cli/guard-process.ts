/**
 * The code under test runs in loopgate's process: the user's config, agent
 * factories and tools. None of it may end the gate or decide its exit code.
 *
 * - `process.exit` called by that code throws instead (a tool that calls it
 *   fails like any tool that throws); loopgate exits through `exitNow`.
 * - A promise the code left rejected and unhandled, or an exception thrown
 *   from its own timers, is kept and told after the run, which then fails
 *   (exit 1 at least): never Node's raw crash dump, never a pass.
 * - Timers and sockets the code left behind do not keep the process alive
 *   once the command has finished: the CLI exits with its code.
 */
export class ExitByCodeUnderTest extends Error {
  constructor(code: unknown) {
    super(`process.exit(${code === undefined ? '' : String(code)}) was called by the code under test; loopgate does not let it end the run`);
    this.name = 'ExitByCodeUnderTest';
  }
}

export interface ProcessGuard {
  /** Ends the process with this code (what loopgate itself uses). */
  readonly exitNow: (code: number) => never;
  /** What the code under test threw or rejected outside any case, one line each. */
  readonly strays: () => readonly string[];
}

let realExit: ((code: number) => never) | undefined;

/** Node's own `process.exit`, whether or not the process is guarded. */
export function exitNow(code: number): never {
  return (realExit ?? (process.exit.bind(process) as (code: number) => never))(code);
}

export function guardProcess(): ProcessGuard {
  const exitNow = process.exit.bind(process) as (code: number) => never;
  realExit = exitNow;
  process.exit = ((code?: unknown) => {
    throw new ExitByCodeUnderTest(code);
  }) as typeof process.exit;
  const strays: string[] = [];
  const keep = (what: string) => (reason: unknown) => {
    const text = reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason);
    strays.push(`${what}: ${text.split('\n')[0]}`);
  };
  process.on('unhandledRejection', keep('a promise of the code under test was rejected and never handled'));
  process.on('uncaughtException', keep('the code under test threw outside any case'));
  return { exitNow, strays: () => strays };
}
