/**
 * `describeModelClientContract` under vitest's defaults, as a team runs it: a client that never settles fails
 * its case with the suite's own diagnosis, not vitest's "Test timed out in 5000ms" (outside probe 36, L1: each
 * `it` took vitest's 5 s default, shorter than the suite's own guard — the call's deadline and 5 s more).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const describeModule = new URL('./describe.ts', import.meta.url).pathname;
const casesModule = new URL('./cases.ts', import.meta.url).pathname;
const scriptedModule = new URL('./scripted-harness.ts', import.meta.url).pathname;

const fixture = `
import { describeModelClientContract } from ${JSON.stringify(describeModule)};
import { CONTRACT_CASES } from ${JSON.stringify(casesModule)};
const base = CONTRACT_CASES.find((c) => c.id === 'reply_text');
const never = { ...base, id: 'never_settles', request: (r) => ({ ...r, timeoutMs: 150 }) };
describeModelClientContract('hangs', { name: 'hangs', clientFor: () => ({ client: { name: 'hangs', call: () => new Promise(() => {}) } }) }, { cases: [never] });
`;

describe('describeModelClientContract under vitest defaults', () => {
  it('fails a client that never settles with the suite diagnosis, before any vitest timeout', () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopgate-describe-'));
    try {
      writeFileSync(join(dir, 'hangs.test.ts'), fixture);
      // No config: vitest's own defaults (a 5 s test timeout), as in a team's project.
      writeFileSync(join(dir, 'vitest.config.mjs'), 'export default {};\n');
      const vitest = join(import.meta.dirname, '../../node_modules/vitest/vitest.mjs');
      const child = spawnSync(process.execPath, [vitest, 'run', '--root', dir, '--reporter', 'verbose'], { encoding: 'utf8', timeout: 120_000 });
      const out = `${child.stdout}\n${child.stderr}`;
      expect(child.status, out).toBe(1);
      expect(out).toMatch(/the client had not settled 5150 ms into a call whose deadline is 150 ms/);
      expect(out).not.toMatch(/Test timed out/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails a harness whose every case was skipped: nothing was checked (outside probe 58, MED-1)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopgate-describe-'));
    try {
      const none = `
import { describeModelClientContract } from ${JSON.stringify(describeModule)};
describeModelClientContract('skips everything', { name: 'none', clientFor: () => ({ unsupported: 'not today' }) });
describeModelClientContract('skips up front', { name: 'none', unsupported: { reply_text: 'no' } }, { only: ['reply_text'] });
`;
      // One case skipped up front, one run: checked, whatever the order (review of stop 61, M1).
      const some = `
import { describeModelClientContract } from ${JSON.stringify(describeModule)};
import { createScriptedHarness } from ${JSON.stringify(scriptedModule)};
const h = createScriptedHarness();
describeModelClientContract('one of two', { ...h, clientFor: h.clientFor, unsupported: { reply_text: 'no' } }, { only: ['reply_text', 'usage_accounting'] });
`;
      writeFileSync(join(dir, 'some.test.ts'), some);
      writeFileSync(join(dir, 'none.test.ts'), none);
      writeFileSync(join(dir, 'vitest.config.mjs'), 'export default {};\n');
      const vitest = join(import.meta.dirname, '../../node_modules/vitest/vitest.mjs');
      // In a shuffled order too: the check must come after the cases it counts, wherever they run.
      const child = spawnSync(process.execPath, [vitest, 'run', '--root', dir, '--reporter', 'verbose', '--sequence.shuffle'], {
        encoding: 'utf8',
        timeout: 120_000,
      });
      const out = `${child.stdout}\n${child.stderr}`.replace(/\x1b\[[0-9;]*m/g, '');
      expect(child.status, out).toBe(1);
      expect(out).toMatch(/ModelClient contract: skips everything: nothing was checked: all \d+ case\(s\) were skipped/);
      expect(out).toMatch(/skips up front > \(loopgate\) something was checked/);
      expect(out).toMatch(/nothing was checked: all 1 case\(s\) were skipped/);
      expect(out).not.toMatch(/one of two: nothing was checked/);
      expect(out).toMatch(/✓ some\.test\.ts > ModelClient contract: one of two > usage_accounting/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
