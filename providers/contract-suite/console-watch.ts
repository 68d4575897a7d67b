/**
 * What a client writes to stdout or stderr while a call runs. An adapter is a
 * library: whatever it (or the SDK it wraps, at its default log level) writes goes
 * to its user's console, where a raw stream chunk the SDK logs may carry the
 * model's text or a key. The SDKs bind `console.error` once and keep it, so the
 * watch sits on the process streams; cases run concurrently and the suite prints
 * its progress there too, so a write counts for a call only when it comes from
 * the call's own async context.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

type Write = (chunk: unknown, ...rest: unknown[]) => boolean;

const context = new AsyncLocalStorage<string[]>();
let open = 0;
let saved: { readonly stream: NodeJS.WriteStream; readonly write: Write }[] | undefined;

function install(): void {
  saved = [process.stdout, process.stderr].map((stream) => ({ stream, write: stream.write as Write }));
  for (const { stream, write } of saved) {
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      const written = context.getStore();
      if (written !== undefined) written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      return write.call(stream, chunk, ...rest);
    }) as typeof stream.write;
  }
}

export interface ConsoleWatch {
  /** What the call wrote, one entry per write. */
  readonly written: readonly string[];
  /** Runs the call in the watched context. */
  run<T>(call: () => T): T;
  stop(): void;
}

export function watchConsole(): ConsoleWatch {
  const written: string[] = [];
  if (open++ === 0) install();
  let stopped = false;
  return {
    written,
    run: (call) => context.run(written, call),
    stop() {
      if (stopped) return;
      stopped = true;
      if (--open > 0 || saved === undefined) return;
      for (const { stream, write } of saved) stream.write = write as typeof stream.write;
      saved = undefined;
    },
  };
}
