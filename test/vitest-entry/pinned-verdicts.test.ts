/**
 * `describeScenarios` judges a peer loop against the config's pinned verdicts
 * (`verdicts:`), as `loopgate run` does: a case that fails exactly as pinned
 * passes, one that differs fails naming how (outside probe 43, F4: `loopgate run`
 * exit 0 "fails exactly as documented", the team's vitest 4 failed on the same
 * config). Run in a vitest of its own, as a team's project runs it.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'loopgate-vitest-verdicts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const node = (args: string[], cwd: string) => spawnSync(process.execPath, args, { cwd, encoding: 'utf8', env: { ...process.env, CI: '' }, timeout: 150_000 });

it('passes a peer case failing exactly as pinned, and fails one that differs, naming the difference', () => {
  const at = mkdtempSync(join(dir, 'p-'));
  cpSync(join(import.meta.dirname, 'peer-loop', 'scenarios'), join(at, 'scenarios'), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(at, 'node_modules')); // the team's zod
  // Judged in full, as run judges the config's own loop: a reply other than the one expected fails, and is pinned so
  // (review of stop 52: describeScenarios judged outcomes only, and this case "newly passed").
  writeFileSync(
    join(at, 'scenarios', 'reply.yaml'),
    'name: the reply is checked\nprovider:\n  script:\n    - reply: Restart the VPN client.\ninbox:\n  - say: VPN is down.\nexpect:\n  outcome: replied\n  reply: Something else entirely.\n',
  );
  const config = readFileSync(join(import.meta.dirname, 'peer-loop', 'loopgate.config.ts'), 'utf8')
    .replace("'../../../src/index.ts'", JSON.stringify(join(ROOT, 'src/index.ts')))
    .replace("loop: 'ai-sdk',", "loop: 'ai-sdk',\n  verdicts: { 'ai-sdk': 'verdicts/ai-sdk.json' },");
  writeFileSync(join(at, 'loopgate.config.ts'), config);
  writeFileSync(
    join(at, 'gate.test.ts'),
    `import { describeScenarios } from ${JSON.stringify(join(ROOT, 'src/vitest.ts'))};\ndescribeScenarios('helpdesk');\n`,
  );

  const record = node([join(ROOT, 'bin/loopgate.js'), 'run', '--loop', 'ai-sdk', '--update-verdicts', '--reporter', 'console'], at);
  expect(record.status, record.stderr).toBe(0);
  const file = join(at, 'verdicts', 'ai-sdk.json');
  const pinned = JSON.parse(readFileSync(file, 'utf8'));
  expect(pinned.cases['scenario:scenarios/step-limit'].status).toBe('failed');
  expect(pinned.cases['scenario:scenarios/reply'].status).toBe('failed');

  const vitest = () => node([join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--root', at, '--dir', at], at);
  const asPinned = vitest();
  expect(asPinned.status, asPinned.stdout + asPinned.stderr).toBe(0);
  expect(asPinned.stdout).toMatch(/1 skipped/); // the steer the AI SDK cannot take, skipped as pinned

  // Pinned as passing: the same run now differs from its verdicts.
  pinned.cases['scenario:scenarios/step-limit'] = { status: 'passed', outcome: 'replied' };
  writeFileSync(file, JSON.stringify(pinned, null, 2));
  const differs = vitest();
  expect(differs.status, differs.stdout).toBe(1);
  expect(differs.stdout + differs.stderr).toMatch(/newly fails/);
  // One difference, one failed test: the case still counts as checked.
  expect(differs.stdout).toMatch(/1 failed/);
  expect(differs.stdout + differs.stderr).not.toMatch(/nothing was checked/);
}, 300_000);
