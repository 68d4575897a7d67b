/**
 * Test doubles for the tool pipeline's tests: an in-memory recorder that keeps
 * what it was told. (Time: the harness's VirtualClock, advanced by the test.)
 */
import type { PolicyDecision, SideEffect, ToolCallRecorder } from '../../src/kernel/tools/types.ts';

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
