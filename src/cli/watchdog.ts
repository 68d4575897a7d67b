/**
 * The code under test runs on loopgate's one thread. A tool, hook or agent part
 * that loops without awaiting (`for (;;) {}`), or awaits only promises already
 * settled (`for (;;) await null`), holds that thread: no timer of the run can
 * fire, not even SIGTERM's handler, and the command would spin silently until
 * CI kills it. The watchdog is a second thread that watches the first one's
 * heartbeat (a counter a timer bumps). When it has not moved for the limit (of
 * CPU time: a thread starved on a loaded machine is not stuck), the
 * watchdog interrupts the main thread through the inspector, which V8 serves
 * between any two bytecodes: the interrupt runs on top of the stuck code, says
 * which case was running and where the code was, and ends the command, exit 1.
 *
 * - `LOOPGATE_HANG_TIMEOUT_MS` sets the limit (default 30 s).
 * - Off under a debugger (`--inspect`): a breakpoint stops the heartbeat too.
 * - Started by the commands that run the code under test (`run`, `fuzz`, and
 *   `check-host`, which builds the agent), in the CLI's process only: never inside
 *   a test runner's worker.
 */
import { closeSync } from 'node:fs';
import { sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { url as inspectorUrl } from 'node:inspector';
import { setInterval as everyMs } from 'node:timers';
import { Worker } from 'node:worker_threads';
import { realTimeLimitMs, showLimit } from '../harness/world/load-limit.ts';
import { errorLines } from './error-lines.ts';
import { EXIT } from './exit-codes.ts';
import { exitNow } from './guard-process.ts';
import { cleanUpAfterInterrupt } from './interrupt.ts';

export const HANG_LIMIT_ENV = 'LOOPGATE_HANG_TIMEOUT_MS';
const DEFAULT_HANG_LIMIT_MS = 30_000;
/** What the watchdog thread evaluates on the stuck thread (a global: the inspector reaches nothing else). */
export const HUNG = 'loopgate.watchdog.hung';
const BEAT_MS = 100;
/** Frames of the stuck code told, from the innermost. */
const FRAMES = 4;

/** What the command is doing, for the line that tells where it stopped. */
export interface Activity {
  /** `label` (a case id, a fuzz run) started. */
  readonly start: (label: string) => void;
  /** `label` finished. */
  readonly end: (label: string) => void;
}

export interface Watchdog extends Activity {
  /** The command is done: no more watching. */
  readonly stop: () => void;
}

const IDLE: Watchdog = { start: () => {}, end: () => {}, stop: () => {} };

/**
 * Watches this thread for `command` (`run`, `fuzz`, `check`: the word for "the … stopped"). Throws an InputError for a bad
 * LOOPGATE_HANG_TIMEOUT_MS, before anything runs.
 */
export function startWatchdog(command: string, env: NodeJS.ProcessEnv = process.env): Watchdog {
  const limitMs = realTimeLimitMs(env, HANG_LIMIT_ENV, DEFAULT_HANG_LIMIT_MS);
  if (inspectorUrl() !== undefined) return IDLE;
  const running = new Set<string>();
  let started = false;
  (globalThis as Record<symbol, unknown>)[Symbol.for(HUNG)] = (heldMs: number) => {
    const where = stuckFrames();
    const left = cleanUpAfterInterrupt() ?? 'no report was written';
    const own = heldByLoopgate(where, OWN_CODE);
    process.stderr.write(
      errorLines(
        [
          `the ${command} stopped: ${own ? "loopgate's own code" : 'the code under test'} held loopgate's only thread for ${showLimit(heldMs)} without yielding, ${during(running, started)}`,
          ...(where.length > 0 ? where.map((frame) => `  ${frame}`) : ['  (no frame of it on the stack: it awaits promises already settled, in a loop)']),
          own
            ? `loopgate's own work (the frames above are its) took longer than the limit: a case far longer than usual (thousands of turns) can, else it is loopgate's bug — please report it with the frames; ${HANG_LIMIT_ENV} sets the limit (default ${showLimit(DEFAULT_HANG_LIMIT_MS)})`
            : `a tool, hook or agent part that loops without awaiting, awaits only settled promises, or blocks in a synchronous call that never returns, never lets the ${command} go on; ${HANG_LIMIT_ENV} sets the limit (default ${showLimit(DEFAULT_HANG_LIMIT_MS)})`,
          left,
        ].join('\n'),
      ),
    );
    // Node tells of the inspector session still open as the process ends; nothing more is ours to say.
    try {
      closeSync(2);
    } catch {}
    exitNow(EXIT.failed);
  };
  const beat = new Int32Array(new SharedArrayBuffer(4));
  const heart = everyMs(() => Atomics.add(beat, 0, 1), BEAT_MS);
  heart.unref();
  const extension = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  const thread = new Worker(new URL(`./watchdog-thread.${extension}`, import.meta.url), {
    workerData: { beat, limitMs, hung: HUNG },
    stdout: false,
    stderr: false,
  });
  thread.unref();
  // No watchdog is no reason to stop the command: it runs as it did before there was one, and says so.
  thread.on('error', (error) => {
    clearInterval(heart);
    process.stderr.write(errorLines(`the hang watchdog could not start (${error.message}): a case that never yields will not be stopped`));
  });
  return {
    start: (label) => {
      started = true;
      running.add(label);
    },
    end: (label) => running.delete(label),
    stop: () => {
      clearInterval(heart);
      void thread.terminate();
    },
  };
}

/** Where the command was when its thread was held: before the cases, in some, or after them. */
export function during(running: ReadonlySet<string>, started: boolean): string {
  const labels = [...running];
  if (labels.length === 0)
    return started
      ? 'after the cases (checking what they left, writing the reports)'
      : 'before any case started (loading the config, building the agents or collecting the cases)';
  if (labels.length === 1) return `in ${labels[0]}`;
  return `in one of these, running at once: ${labels.join(', ')}`;
}

/** The stuck code's frames: the stack under this interrupt, without its own two frames and Node's. */
/** loopgate's own code: the folder above this file's (src/ in the repository, dist/src/ in a consumer's node_modules). */
const OWN_CODE = fileURLToPath(new URL('..', import.meta.url));

/**
 * Whether the frame the thread was held in is loopgate's own (its harness checking a run, its kernel), not the code
 * under test: then "the code under test held the thread" would send a user hunting a bug in a tool they do not have
 * (outside probe 35, F8: invariant 15 on a 3,000-turn case). Frames name files as paths or file: URLs.
 */
export function heldByLoopgate(frames: readonly string[], ownCode: string): boolean {
  const top = frames[0];
  if (top === undefined) return false;
  const own = ownCode.endsWith(sep) ? ownCode : `${ownCode}${sep}`;
  return top.includes(own) || top.includes(pathToFileURL(own).href);
}

function stuckFrames(): string[] {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 50;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  return stack
    .split('\n')
    .slice(1)
    .map((line) => line.trim())
    .filter((line) => line.startsWith('at ') && !line.includes('node:') && !line.includes('<anonymous>') && !line.includes('/watchdog.'))
    .slice(0, FRAMES);
}
