/**
 * A counterexample whose run throws before it can be judged (the world's store
 * broke its contract as the case ended) still reproduces as a failing case, as
 * `loopgate run` reports the same file ("harness: the case threw"): the fuzz run
 * reports it and exits 1. Outside probe 67 (sqlite-list-dup): fuzz found the
 * violation, then died replaying its counterexample, exit 2, no results.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

vi.mock('../../src/harness/second-host.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/harness/second-host.ts')>()),
  runScenario: async () => {
    throw new Error('the store listed conversation "case" 2 times: listConversations must name each conversation once');
  },
}));

const { reproduce } = await import('../../src/fuzz/reproduce.ts');

describe('reproducing a counterexample whose run throws', () => {
  it('fails the case with the reason, and does not throw', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'loopgate-reproduce-')), 'counterexample.yaml');
    writeFileSync(file, 'name: x\nagent: support\nprovider:\n  script: []\ninbox:\n  - say: hi\nexpect: {}\n');
    const failing = await reproduce(file);
    expect(failing).toEqual([
      { name: 'harness', passed: false, message: expect.stringMatching(/^the case threw: Error: the store listed conversation "case" 2 times/) },
    ]);
  });
});
