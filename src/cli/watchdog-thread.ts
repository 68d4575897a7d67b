/**
 * The watchdog's own thread (watchdog.ts): it reads the main thread's heartbeat
 * and, once it has not moved for the limit, has the main thread tell where it is
 * stuck and end the command. "For the limit" counts the process's CPU time, not
 * the clock's: on a loaded machine a starved main thread misses beats without
 * being stuck, and is not stopped for it. A thread blocked without spending CPU
 * (a synchronous wait that never ends) is stopped at WALL_FACTOR times the limit. Should the inspector not reach it, this thread says
 * so itself and ends the process (SIGKILL: nothing else ends a thread that never
 * yields).
 */
import { writeSync } from 'node:fs';
import { Session } from 'node:inspector';
import { workerData } from 'node:worker_threads';

const { beat, limitMs, hung } = workerData as { beat: Int32Array; limitMs: number; hung: string };
/** How long the main thread may take to answer the interrupt before this thread ends the process itself. */
const ANSWER_MS = 5_000;
/** A main thread that misses its beats without spending CPU is stopped at this many times the limit, by the clock. */
const WALL_FACTOR = 4;

let seen = Atomics.load(beat, 0);
let since = performance.now();
let cpuSince = process.cpuUsage();
const watch = setInterval(
  () => {
    const now = Atomics.load(beat, 0);
    if (now !== seen) {
      seen = now;
      since = performance.now();
      cpuSince = process.cpuUsage();
      return;
    }
    const cpu = process.cpuUsage(cpuSince);
    const cpuMs = (cpu.user + cpu.system) / 1_000;
    const wallMs = performance.now() - since;
    if (cpuMs >= limitMs && wallMs >= limitMs) return stop(limitMs);
    if (wallMs >= WALL_FACTOR * limitMs) return stop(WALL_FACTOR * limitMs);
  },
  Math.min(1_000, Math.max(10, limitMs / 5)),
);

function stop(heldMs: number): void {
  clearInterval(watch);
  interrupt(heldMs);
}

function interrupt(heldMs: number): void {
  const fallback = setTimeout(() => endItHere(heldMs, 'the interrupt was not answered'), ANSWER_MS);
  try {
    const session = new Session();
    session.connectToMainThread();
    // The main thread's handler ends the process; an answer means it could not.
    session.post('Runtime.evaluate', { expression: `globalThis[Symbol.for(${JSON.stringify(hung)})](${heldMs})` }, (error) => {
      clearTimeout(fallback);
      endItHere(heldMs, error ? error.message : 'the main thread did not end');
    });
  } catch (error) {
    clearTimeout(fallback);
    endItHere(heldMs, (error as Error).message);
  }
}

function endItHere(heldMs: number, why: string): void {
  const seconds = Number((heldMs / 1_000).toFixed(1));
  writeSync(
    2,
    `loopgate: stopped: the code under test held loopgate's only thread for ${seconds} s without yielding (a loop that never awaits); where it was is unknown (${why}); no report was written\n`,
  );
  process.kill(process.pid, 'SIGKILL');
}
