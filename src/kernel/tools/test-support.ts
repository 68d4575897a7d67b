/**
 * Test doubles for the tool pipeline's tests: a clock whose sleeps resolve only
 * when a test advances it (so a timeout is an event the test causes, not a wait),
 * and an in-memory recorder that keeps what it was told.
 */
import type { Clock } from '../clock.ts';
import type { PolicyDecision, SideEffect, ToolCallRecorder } from './types.ts';

export interface ManualClock extends Clock {
  /** Moves time forward and resolves every sleep that is due. */
  advance(ms: number): void;
  /** Sleeps not yet resolved. */
  pending(): number;
}

export function manualClock(start = 0): ManualClock {
  let now = start;
  const sleepers: { due: number; resolve: () => void }[] = [];
  return {
    now: () => now,
    sleep(ms, signal) {
      return new Promise<void>((resolve) => {
        if (signal?.aborted) return resolve();
        const sleeper = {
          due: now + Math.max(0, ms),
          resolve: () => {
            const i = sleepers.indexOf(sleeper);
            if (i >= 0) sleepers.splice(i, 1);
            resolve();
          },
        };
        sleepers.push(sleeper);
        signal?.addEventListener('abort', () => sleeper.resolve(), { once: true });
      });
    },
    advance(ms) {
      now += ms;
      for (const s of sleepers.filter((s) => s.due <= now)) s.resolve();
    },
    pending: () => sleepers.length,
  };
}

export interface StartedEntry {
  callId: string;
  name: string;
  args: unknown;
  sideEffect: SideEffect;
  attempt: number;
  idempotencyKey?: string;
}

export interface MemoryRecorder extends ToolCallRecorder {
  readonly policies: { callId: string; tool: string; decision: PolicyDecision }[];
  readonly starts: StartedEntry[];
  /** Call ids that count as started before this process (a crash before). */
  readonly preStarted: Set<string>;
  /** When set, `started` rejects with it (a persistence failure). */
  failStarted: Error | undefined;
}

export function memoryRecorder(): MemoryRecorder {
  const recorder: MemoryRecorder = {
    policies: [],
    starts: [],
    preStarted: new Set(),
    failStarted: undefined,
    policy(callId, tool, decision) {
      recorder.policies.push({ callId, tool, decision });
    },
    async started(entry) {
      if (recorder.failStarted) throw recorder.failStarted;
      recorder.starts.push(entry);
    },
    alreadyStarted(callId) {
      return recorder.preStarted.has(callId) || recorder.starts.some((s) => s.callId === callId);
    },
  };
  return recorder;
}

/** Lets pending promise callbacks run (a few macrotask turns' worth of microtasks). */
export async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
  await new Promise<void>((resolve) => setImmediate(resolve));
}
