/**
 * Soak: 50,000 one-message conversations through one AgentHost (memory store,
 * the scripted model) keep the host's own heap bounded. Runs bench/host-soak.ts in
 * a child process with --expose-gc (heap figures need a full GC); the benchmark
 * records the whole curve in bench/results/host-soak.*.
 *
 * The bound, stated: what the host retains after the run — the heap with the host
 * minus the heap with only the store left — is at most 32 MiB (the default
 * `sessions.maxIdle` of 1,000 idle conversations measured about 8 MiB; before idle
 * sessions were evicted the host kept every conversation: 231 MiB at 50,000). The
 * memory store itself keeps every event on the heap, so the total grows with the
 * conversations whatever the host does; it is bounded separately by the store's own
 * size plus the same 32 MiB.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CONVERSATIONS = 50_000;
const HOST_BOUND_MIB = 32;
const script = fileURLToPath(new URL('../../bench/host-soak.ts', import.meta.url));

describe('host soak', () => {
  it(`${CONVERSATIONS.toLocaleString('en')} one-message conversations: the host retains at most ${HOST_BOUND_MIB} MiB`, { timeout: 180_000 }, () => {
    const run = spawnSync(process.execPath, ['--expose-gc', script, String(CONVERSATIONS), '--every', '10000', '--json'], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as {
      answered: number;
      heapEndMiB: number;
      storeOnlyMiB: number;
      hostRetainedMiB: number;
      openConversations: number;
    };
    const why = JSON.stringify(result);
    expect(result.answered, why).toBe(CONVERSATIONS);
    expect(result.openConversations, why).toBeLessThanOrEqual(1_000); // sessions.maxIdle
    expect(result.hostRetainedMiB, why).toBeLessThanOrEqual(HOST_BOUND_MIB);
    expect(result.heapEndMiB, why).toBeLessThanOrEqual(result.storeOnlyMiB + HOST_BOUND_MIB);
  });
});
