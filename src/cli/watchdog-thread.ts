/**
 * The watchdog's own thread (watchdog.ts): it reads the main thread's heartbeat
 * and, once it has not moved for the limit, has the main thread tell where it is
 * stuck and end the command. Should the inspector not reach it, this thread says
 * so itself and ends the process (SIGKILL: nothing else ends a thread that never
 * yields).
 */
import { writeSync } from 'node:fs';
import { Session } from 'node:inspector';
import { workerData } from 'node:worker_threads';

const { beat, limitMs, hung } = workerData as { beat: Int32Array; limitMs: number; hung: string };
/** How long the main thread may take to answer the interrupt before this thread ends the process itself. */
const ANSWER_MS = 5_000;

let seen = Atomics.load(beat, 0);
let since = performance.now();
const watch = setInterval(
  () => {
    const now = Atomics.load(beat, 0);
    if (now !== seen) {
      seen = now;
      since = performance.now();
      return;
    }
    if (performance.now() - since < limitMs) return;
    clearInterval(watch);
    interrupt();
  },
  Math.min(1_000, Math.max(10, limitMs / 5)),
);

function interrupt(): void {
  const fallback = setTimeout(() => endItHere('the interrupt was not answered'), ANSWER_MS);
  try {
    const session = new Session();
    session.connectToMainThread();
    // The main thread's handler ends the process; an answer means it could not.
    session.post('Runtime.evaluate', { expression: `globalThis[Symbol.for(${JSON.stringify(hung)})]()` }, (error) => {
      clearTimeout(fallback);
      endItHere(error ? error.message : 'the main thread did not end');
    });
  } catch (error) {
    clearTimeout(fallback);
    endItHere((error as Error).message);
  }
}

function endItHere(why: string): void {
  const seconds = Number((limitMs / 1_000).toFixed(1));
  writeSync(
    2,
    `loopgate: stopped: the code under test held loopgate's only thread for ${seconds} s without yielding (a loop that never awaits); where it was is unknown (${why}); no report was written\n`,
  );
  process.kill(process.pid, 'SIGKILL');
}
