/**
 * `loopgate run` and `loopgate fuzz` check the same invariants, from the one
 * registry (src/harness/invariants): a scenario case reports a check per
 * invariant, and a fuzz run a case per invariant, with the same ids in the same order
 * (then its own check of what it drew).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fuzz } from '../../src/cli/commands/fuzz.ts';
import { run } from '../../src/cli/commands/run.ts';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { INVARIANTS } from '../../src/harness/invariants/index.ts';
import { readResultsFile } from '../../src/report/json.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'loopgate-registry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const quiet = { out: () => {}, err: () => {}, tty: false };

describe('one registry', () => {
  it('loopgate run and loopgate fuzz report the same list of invariants', async () => {
    const scenario = join(ROOT, 'scenarios/bundled/refunds/approved-refund-runs-once.yaml');
    expect(await run({ paths: [scenario], reporter: ['json'], out: join(dir, 'run'), seed: 1, repeat: 1 }, quiet)).toBe(EXIT.passed);
    const ran = await readResultsFile(join(dir, 'run/results.json'));
    const checked = ran.cases[0]!.checks.map((c) => c.name).filter((name) => INVARIANTS.some((i) => i.id === name));

    expect(await fuzz({ runs: 3, seed: 1, out: join(dir, 'fuzz'), reporter: ['json'] }, quiet)).toBe(EXIT.passed);
    const fuzzed = await readResultsFile(join(dir, 'fuzz/results.json'));
    // Every fuzz case is an invariant's, but the fuzzer's own check of what it drew (src/fuzz/drawn.ts).
    const properties = fuzzed.cases.filter((c) => c.id !== 'fuzz:generator-draws-every-fault').map((c) => c.id.replace(/^fuzz:/, ''));
    expect(fuzzed.cases.at(-1)?.id).toBe('fuzz:generator-draws-every-fault');

    const registry = INVARIANTS.map((i) => i.id);
    expect(checked).toEqual(registry);
    expect(properties).toEqual(registry);
  });
});
