import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { memoryRecorder } from '../../test/support/tool-doubles.ts';
import { holdTime, releaseTime, resumeTime, suspendTime, systemClock } from './clock.ts';
import { createRedactor } from './redact/index.ts';
import { defineTool } from './tools/define-tool.ts';
import { createToolExecutor } from './tools/pipeline.ts';
import { ToolRegistry } from './tools/registry.ts';
import { Tracer } from './trace/tracer.ts';

/** Date.now under the test's control: each read counted, time moved by hand. */
let fakeNow = 1_000;
let reads = 0;
beforeEach(() => {
  fakeNow = 1_000;
  reads = 0;
  vi.spyOn(Date, 'now').mockImplementation(() => {
    reads++;
    return fakeNow;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('systemClock: one timestamp per hold', () => {
  it('reads the clock at every call outside a hold', () => {
    expect(systemClock.now()).toBe(1_000);
    fakeNow = 1_005;
    expect(systemClock.now()).toBe(1_005);
    expect(reads).toBe(2);
  });

  it('inside a hold, reads it once (at the first call) and gives that value after', () => {
    holdTime();
    try {
      expect(reads).toBe(0); // taken lazily, not when the hold starts
      fakeNow = 1_001;
      expect(systemClock.now()).toBe(1_001);
      fakeNow = 1_002;
      expect(systemClock.now()).toBe(1_001);
      expect(systemClock.now()).toBe(1_001);
      expect(reads).toBe(1);
    } finally {
      releaseTime();
    }
    expect(systemClock.now()).toBe(1_002);
    // A new hold takes a new timestamp.
    holdTime();
    try {
      fakeNow = 1_003;
      expect(systemClock.now()).toBe(1_003);
    } finally {
      releaseTime();
    }
  });

  it('holds nest: the inner release keeps the outer timestamp', () => {
    holdTime();
    try {
      expect(systemClock.now()).toBe(1_000);
      holdTime();
      fakeNow = 1_010;
      expect(systemClock.now()).toBe(1_000);
      releaseTime();
      expect(systemClock.now()).toBe(1_000);
    } finally {
      releaseTime();
    }
    expect(systemClock.now()).toBe(1_010);
  });

  it('suspended, the clock runs free; resumed, the next call takes a fresh timestamp', () => {
    holdTime();
    try {
      expect(systemClock.now()).toBe(1_000);
      const held = suspendTime();
      try {
        fakeNow = 1_020;
        expect(systemClock.now()).toBe(1_020);
        fakeNow = 1_030;
        expect(systemClock.now()).toBe(1_030);
      } finally {
        resumeTime(held);
      }
      fakeNow = 1_040;
      expect(systemClock.now()).toBe(1_040);
      fakeNow = 1_050;
      expect(systemClock.now()).toBe(1_040);
    } finally {
      releaseTime();
    }
    expect(systemClock.now()).toBe(1_050);
  });
});

describe('the tool pipeline on the system clock inside a hold', () => {
  it("measures a slow synchronous tool's and policy's own time, not the held timestamp", async () => {
    const tool = defineTool({
      name: 'slow',
      description: 'Takes 50 ms of the clock.',
      input: z.object({ n: z.number() }),
      sideEffect: 'NONE',
      run: ({ n }) => {
        fakeNow += 50;
        return { n };
      },
    });
    const executor = createToolExecutor({
      registry: new ToolRegistry([tool]),
      redact: createRedactor({ secrets: [] }),
      // A rule whose predicate takes 20 ms and does not match: the policy's own work.
      policy: {
        rules: [
          {
            id: 'slow-check',
            decision: 'deny',
            when: () => {
              fakeNow += 20;
              return false;
            },
          },
        ],
      },
    });
    const tracer = new Tracer({ clock: systemClock, traceId: 't' });
    const root = tracer.startSpan('turn', 'turn');
    const recorder = memoryRecorder();
    // Recorded at once (as the loop's journal records a call that is not written ahead): the call settles synchronously.
    recorder.started = (entry) => {
      recorder.starts.push(entry);
      return undefined;
    };
    const ctx = { signal: new AbortController().signal, clock: systemClock, recorder, trace: root };
    holdTime();
    let settled: Awaited<ReturnType<typeof executor.execute>>;
    try {
      const now = executor.executeNow!({ id: 'c1', name: 'slow', args: { n: 1 } }, ctx);
      expect(now).not.toBeInstanceOf(Promise);
      settled = now as Exclude<typeof now, Promise<unknown>>;
    } finally {
      releaseTime();
    }
    root.end('ok');
    expect(settled.status).toBe('ok');
    // Both the policy's 20 ms and the tool's 50 ms, as before the hold existed.
    expect(settled.durationMs).toBe(70);
    const spans = tracer.end().spans;
    const toolSpan = spans.find((s) => s.kind === 'tool')!;
    const policySpan = spans.find((s) => s.kind === 'policy')!;
    expect(toolSpan.end! - toolSpan.start).toBe(70);
    expect(policySpan.end! - policySpan.start).toBe(20);
  });
});
