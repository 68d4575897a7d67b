/**
 * A case starved — waiting on a promise nothing will settle, with nothing else
 * left to run — fails naming itself, and the run goes on: the cases after it run
 * and every result comes back (outside probe 22, F3: a loop bug that left a
 * contract case waiting on a timer no clock fired ended `loopgate run` exit 2,
 * blaming the user's code, the case not named, no report written).
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const script = `
const { runCases } = await import(${JSON.stringify(new URL('./runner.ts', import.meta.url).href)});
const { releaseStarved } = await import(${JSON.stringify(new URL('./never-settled.ts', import.meta.url).href)});
process.on('beforeExit', () => { releaseStarved(); });
const ok = (id) => ({ id, kind: 'contract', title: id, run: async () => ({ status: 'passed', checks: [{ name: 'ok', passed: true, message: 'ok' }] }) });
const starved = { id: 'contract:starved', kind: 'contract', title: 'starved', run: () => new Promise(() => {}) };
const results = await runCases([ok('contract:first'), starved, ok('contract:after')], { seed: 1, concurrency: 1 });
process.stdout.write(JSON.stringify(results.map((r) => [r.id, r.status, r.failure ?? ''])));
`;

describe('a case that never settles', () => {
  it('fails naming itself, and the cases after it still run', () => {
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(child.status, child.stderr).toBe(0);
    const results = JSON.parse(child.stdout) as [string, string, string][];
    expect(results.map(([id, status]) => [id, status])).toEqual([
      ['contract:first', 'passed'],
      ['contract:starved', 'failed'],
      ['contract:after', 'passed'],
    ]);
    expect(results[1]![2]).toMatch(/^the case never finished: it waits on a promise that never settles, and nothing is left to run/);
  });
});
