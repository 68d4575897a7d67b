/**
 * `loopgate run --baseline` fails CI on a regression even when every case still
 * passes: a case that now takes more steps than the baseline allows is a
 * regression, exit 1 — through the real `bin/loopgate.js`, as CI calls it
 * (outside probe 8, plant P17: the exit code looked only at failed cases, and a
 * run that printed "FAILED: 1 regression" exited 0).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'loopgate-baseline-exit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(args: string[]) {
  return spawnSync(process.execPath, [join(ROOT, 'bin/loopgate.js'), ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, CI: 'true' } });
}

const scenario = (lookups: number) =>
  [
    'name: Where is my order',
    'provider:',
    '  script:',
    ...Array.from({ length: lookups }, (_, i) => `    - tool_use: [{ id: l${i}, name: lookup_order, args: { order_id: ORD-1001 } }]`),
    '    - reply: It was delivered on Monday.',
    'inbox:',
    '  - say: Where is ORD-1001?',
    'expect:',
    '  outcome: replied',
    '',
  ].join('\n');

describe('loopgate run --baseline: the exit code', () => {
  it('is 1 for a regression in a run whose cases all pass, 0 when nothing regressed', () => {
    const file = join(dir, 'order.yaml');
    const baseline = join(dir, 'baseline.json');
    writeFileSync(file, scenario(0));
    const update = cli(['run', file, '--host', 'loop', '--baseline', baseline, '--update-baseline', '--reporter', 'console']);
    expect(update.status, update.stderr).toBe(EXIT.passed);
    expect(cli(['run', file, '--host', 'loop', '--baseline', baseline, '--reporter', 'console']).status).toBe(EXIT.passed);

    writeFileSync(file, scenario(4)); // still replies: 1 step becomes 5
    const regressed = cli(['run', file, '--host', 'loop', '--baseline', baseline, '--reporter', 'console']);
    expect(regressed.stdout).toMatch(/0 failed|passed/i);
    expect(regressed.stdout).toMatch(/regression/);
    expect(regressed.status).toBe(EXIT.failed);
    // CI test views read the JUnit root: it fails too, counting the regressions (probe 9, plant P14: failures="0" on exit 1).
    const junit = cli(['run', file, '--host', 'loop', '--baseline', baseline, '--reporter', 'junit', '--out', 'out']);
    expect(junit.status).toBe(EXIT.failed);
    const root = /<testsuites\b[^>]*>/.exec(readFileSync(join(dir, 'out', 'junit.xml'), 'utf8'))?.[0] ?? '';
    expect(root).toMatch(/ failures="[1-9]\d*"/);
    expect(JSON.parse(readFileSync(baseline, 'utf8')).cases).toBeDefined(); // the baseline itself is left as it was
  });
});

describe('loopgate run --update-baseline on a run that checked nothing', () => {
  it('writes no baseline, keeps the one there, and exits 1 (probe 42 follow-up: it wrote a baseline of no case)', () => {
    const file = join(dir, 'live.yaml');
    const baseline = join(dir, 'nothing-baseline.json');
    writeFileSync(file, 'name: a live one\nlive: { passRate: 0.6 }\ninbox:\n  - say: Hello.\nexpect:\n  outcome: replied\n');
    const fresh = cli(['run', file, '--host', 'loop', '--baseline', baseline, '--update-baseline', '--reporter', 'console']);
    expect(fresh.status, fresh.stderr).toBe(EXIT.failed);
    expect(fresh.stderr).toMatch(/nothing was checked: all 1 case\(s\) were skipped; baseline not updated/);
    expect(fresh.stderr).not.toMatch(/baseline updated/);
    expect(() => readFileSync(baseline)).toThrow(/ENOENT/);

    // A baseline already there is left as it was.
    const order = join(dir, 'kept-order.yaml');
    writeFileSync(order, scenario(0));
    expect(cli(['run', order, '--host', 'loop', '--baseline', baseline, '--update-baseline', '--reporter', 'console']).status).toBe(EXIT.passed);
    const before = readFileSync(baseline, 'utf8');
    const again = cli(['run', file, '--host', 'loop', '--baseline', baseline, '--update-baseline', '--reporter', 'console']);
    expect(again.status).toBe(EXIT.failed);
    expect(readFileSync(baseline, 'utf8')).toBe(before);
  });
});
