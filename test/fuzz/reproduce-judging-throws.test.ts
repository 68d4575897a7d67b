/**
 * A counterexample whose run cannot even be judged — the store handed the log
 * records it refuses, so reading the log throws — still reproduces as a failing
 * case: `fuzz` reports it (exit 1), as `loopgate run` reports the same file.
 * Outside probe 66b (mem-range-incl, a memory store reading `to` as inclusive):
 * fuzz found the violation, then died replaying its counterexample — "internal
 * error: LogAppendError …", exit 2, with a stack, and no results.json.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reproduce } from '../../src/fuzz/reproduce.ts';
import { bundledFuzzOptions } from '../support/bundled.ts';
import type { EventRecord } from '../../src/kernel/index.ts';
import { MemoryEventStore, type MemoryStoreFaults } from '../../src/stores/memory-store.ts';

class RangePastItsEndStore extends MemoryEventStore {
  override readRangeSync(conversationId: string, from: number, to: number): EventRecord[] {
    return this.peek(conversationId).slice(from, Math.max(from, to) + 1);
  }
}

const COUNTEREXAMPLE = `name: "fuzz counterexample: invariant-12-nothing-throws"
agent: support
host: production
provider:
  script: []
inbox:
  - say: "Incoming message 1: the last task went wrong. What can you do?"
  - say: And job 1002?
    at:
      request: 1
  - cancel: user
    at:
      request: 1
  - say: "Incoming message 2: the last task went wrong. What can you do?"
store:
  failAppends: []
  failReceipts: [3]
expect: {}
`;

describe('reproducing a counterexample whose log cannot be read', () => {
  it('fails the case with the reason, and does not throw', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'loopgate-reproduce-')), 'counterexample.yaml');
    writeFileSync(file, COUNTEREXAMPLE);
    const { host } = await bundledFuzzOptions();
    const broken = { ...host, seams: { store: (faults: MemoryStoreFaults) => new RangePastItsEndStore({ faults }) } };
    const failing = await reproduce(file, { host: broken });
    expect(failing.length).toBeGreaterThan(0);
    expect(failing.map((c) => c.message).join('\n')).toMatch(/the store gave \d+ event\(s\) for seqs \[0, \d+\) of the log's prefix/);
    // In the real world the same file passes.
    expect(await reproduce(file, { host })).toEqual([]);
  });
});
