/**
 * A `describeScenarios` whose every case is skipped (only `live:` scenarios, or
 * what the config's peer loop cannot run) checked nothing: the vitest run fails,
 * as `loopgate run` exits 1 (review of stop 51: "2 passed", exit 0). Run in a
 * vitest of its own, as a team's project runs it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'loopgate-vitest-nothing-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function project(scenarios: Record<string, string>): string {
  const at = mkdtempSync(join(dir, 'p-'));
  mkdirSync(join(at, 'scenarios'));
  for (const [name, text] of Object.entries(scenarios)) writeFileSync(join(at, 'scenarios', `${name}.yaml`), text);
  writeFileSync(
    join(at, 'gate.test.ts'),
    `import { describeScenarios } from ${JSON.stringify(join(ROOT, 'src/vitest.ts'))};
describeScenarios('the team agent', { agents: { a: () => ({ system: 'You help.' }) }, paths: [${JSON.stringify(join(at, 'scenarios'))}], root: ${JSON.stringify(at)}, host: 'loop' });
`,
  );
  return at;
}

const vitest = (at: string) =>
  spawnSync(process.execPath, [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--root', at, '--dir', at], {
    cwd: at,
    encoding: 'utf8',
    env: { ...process.env, CI: '' },
    timeout: 120_000,
  });

const LIVE = 'name: a live one\nlive: { passRate: 0.6 }\ninbox:\n  - say: Hello.\nexpect:\n  outcome: replied\n';
const HELLO = 'name: hello\nprovider:\n  script:\n    - reply: Hi.\ninbox:\n  - say: Hello.\nexpect:\n  outcome: replied\n';

it('fails a describeScenarios whose every case was skipped: nothing was checked', () => {
  const r = vitest(project({ live: LIVE }));
  expect(r.status, r.stdout + r.stderr).toBe(1);
  expect(r.stdout + r.stderr).toMatch(/nothing was checked: all 1 case\(s\) were skipped/);
}, 150_000);

it('passes one with a case that ran beside a skipped one, the skipped one shown skipped', () => {
  const r = vitest(project({ live: LIVE, hello: HELLO }));
  expect(r.status, r.stdout + r.stderr).toBe(0);
  expect(r.stdout).toMatch(/1 skipped/);
}, 150_000);
