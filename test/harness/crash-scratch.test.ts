/**
 * `loopgate run` reopens every case's log from a real SQLite file
 * (crash-recovery, `reopenFromSqlite`), and the fuzz does for its crash cases:
 * the files live in a scratch directory on tmpfs. Nothing may be left there once
 * a check is done — a CI machine runs the gate thousands of times.
 */
import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkInvariants, INVARIANTS } from '../../src/harness/invariants/index.ts';
import { scratchPrefix } from '../../src/harness/invariants/support/crash-reopen.ts';
import { loadScenarioFile } from '../../src/harness/scenario/load.ts';
import { runScenario } from '../../src/harness/second-host.ts';
import { BUNDLED_ROOT, bundledContext } from '../support/bundled.ts';

// This process's directories only: other test files and other gates share the scratch root.
const scratchDirs = () => new Set(readdirSync(dirname(scratchPrefix())).filter((d) => d.startsWith(basename(scratchPrefix()))));

describe('the crash-recovery scratch files', () => {
  it('are all gone once the invariants of a case are checked', async () => {
    const { scenario } = loadScenarioFile(join(BUNDLED_ROOT, 'refunds/order-status-lookup.yaml'), BUNDLED_ROOT);
    const run = await runScenario(scenario, { seed: 1, agents: (await bundledContext()).registry });
    const before = scratchDirs();
    const results = await checkInvariants(
      run,
      INVARIANTS.filter((i) => i.id === 'crash-recovery'),
    );
    expect(results.map((r) => r.passed)).toEqual([true]);
    const left = [...scratchDirs()].filter((d) => !before.has(d));
    expect(left).toEqual([]);
  });
});
