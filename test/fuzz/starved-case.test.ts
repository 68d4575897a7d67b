/**
 * A fuzz case starved — waiting on a promise nothing will settle, with nothing else left to run — is a violation
 * found at a run, shrunk and reported (exit 1), not the command's end blaming the user's code (outside probe 55,
 * MED-3: a conversation lock that was never let go ended `loopgate fuzz` exit 2, "an agent factory, tool, hook or
 * config export of the code under test that never resolves", no run or seed named, no report).
 * In a child process: only a process whose event loop empties can tell a case is starved (the CLI's 'beforeExit').
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const here = (path: string) => JSON.stringify(new URL(path, import.meta.url).href);
const script = `
const { runFuzz } = await import(${here('../../src/fuzz/run-fuzz.ts')});
const { releaseStarved } = await import(${here('../../src/harness/never-settled.ts')});
const { MemoryEventStore } = await import(${here('../../src/stores/memory-store.ts')});
const { bundledFuzzOptions } = await import(${here('../support/bundled.ts')});
process.on('beforeExit', () => { releaseStarved(); });
// A store whose conversation lock is never let go: the second turn of a conversation waits for it forever.
class NeverLetsGo extends MemoryEventStore {
  #taken = new Set();
  lock(conversationId, signal) {
    if (this.#taken.has(conversationId)) return new Promise(() => {});
    this.#taken.add(conversationId);
    return super.lock(conversationId, signal);
  }
}
const bundled = await bundledFuzzOptions();
const host = { ...bundled.host, seams: { store: (faults) => new NeverLetsGo({ faults }) } };
const result = await runFuzz({ runs: 200, seed: 20_261_206, cases: bundled.cases, host, maxShrinkMs: 20_000 });
const f = result.failure;
process.stdout.write(JSON.stringify(f ? { invariant: f.invariant.id, message: f.message, run: f.foundAtRun, inbox: f.scenario.inbox.length } : null));
`;

describe('a fuzz case that never settles', () => {
  it('is a violation of invariant 12 found at a run, with its case shrunk', () => {
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 240_000 });
    expect(child.status, child.stderr).toBe(0);
    const failure = JSON.parse(child.stdout) as { invariant: string; message: string; run: number; inbox: number } | null;
    expect(failure, 'no violation found').not.toBeNull();
    expect(failure!.invariant).toBe('invariant-12-nothing-throws');
    // Whichever sees it first: the emptied event loop ("waits on a promise that never settles") or the case's clock
    // ("no progress … with no virtual timer pending"); never "the run threw" with the clock's stack.
    expect(failure!.message).toMatch(/^the case never finished: (it waits on a promise that never settles|no progress for \d+ ms of real time)/);
    expect(failure!.inbox).toBeLessThanOrEqual(3);
  });
});
