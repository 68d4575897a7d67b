/**
 * The peers' pinned verdicts (probe 17, F2): `loopgate run --loop ai-sdk` on the
 * bundled suite used to exit 1 on the AI SDK's ~60 documented field failures
 * whatever loopgate's port did, so a bug in the port only changed which cases
 * failed. The bundled config pins each peer's verdicts (scenarios/bundled/verdicts/,
 * recorded from a real run); these whole runs fail as soon as the verdicts differ —
 * a case that newly fails, newly passes, or is judged or persisted differently.
 * Re-record a change you meant: `loopgate run --loop ai-sdk --update-verdicts`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const out = mkdtempSync(join(tmpdir(), 'loopgate-peer-verdicts-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));
// The whole bundled suite through a peer (~400 cases, one at a time): longer than test/support/cli.ts's hang guard.
const loopgate = (args: readonly string[]) => {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin/loopgate.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, CI: 'true' },
    encoding: 'utf8',
    timeout: 240_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

describe.each(['ai-sdk', 'openai-agents'])('loopgate run --loop %s on the bundled suite', (loop) => {
  it('fails exactly as its pinned verdicts say (exit 0), and records the loop it ran', () => {
    const dir = join(out, loop);
    const r = loopgate(['run', '--loop', loop, '--reporter', 'console', 'json', '--out', dir]);
    expect(r.stdout, r.stdout.slice(r.stdout.indexOf('differs from the pinned verdicts'))).toContain(`${loop} fails exactly as documented: `);
    expect(r.status, r.stderr).toBe(0);
    const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as {
      loop: { name: string };
      summary: { failed: number };
      verdicts: { differences: unknown[] };
    };
    expect(results.loop.name).toBe(loop);
    expect(results.verdicts.differences).toEqual([]);
    // The documented failures are there, pinned — not hidden.
    expect(results.summary.failed).toBeGreaterThan(50);
  }, 300_000);
});

/** A team project of one scenario whose config pins the AI SDK's verdicts in v.json; `--update-verdicts` run in it. */
function recordVerdicts(name: string, scenario: string, reporters: readonly string[] = []) {
  const project = mkdtempSync(join(out, `${name}-`));
  mkdirSync(join(project, 'scenarios'));
  writeFileSync(
    join(project, 'loopgate.config.ts'),
    `import { defineConfig } from ${JSON.stringify(join(ROOT, 'src/index.ts'))};\nexport default defineConfig({ agents: { a: () => ({ system: 'You help.' }) }, scenarios: ['scenarios'], verdicts: { 'ai-sdk': 'v.json' } });\n`,
  );
  writeFileSync(join(project, 'scenarios', `${name}.yaml`), scenario);
  const config = join(project, 'loopgate.config.ts');
  const reporter = reporters.length > 0 ? ['--reporter', ...reporters] : [];
  const r = spawnSync(
    process.execPath,
    [join(ROOT, 'bin/loopgate.js'), 'run', '--config', config, '--loop', 'ai-sdk', '--update-verdicts', ...reporter, '--out', join(project, 'out')],
    { cwd: project, env: { ...process.env, CI: '' }, encoding: 'utf8', timeout: 120_000 },
  );
  return { project, status: r.status, stderr: r.stderr };
}

// Review of stop 51: a run whose every case was skipped recorded its verdicts and exited 0, while its reports said
// FAILED, nothing was checked.
it('--update-verdicts on a run that checked nothing records nothing and exits 1', () => {
  const r = recordVerdicts('live', 'name: a live one\nlive: { passRate: 0.6 }\ninbox:\n  - say: Hello.\nexpect:\n  outcome: replied\n');
  expect(r.status, r.stderr).toBe(1);
  expect(r.stderr).toMatch(/loopgate: nothing was checked: all 1 case\(s\) were skipped; no verdicts recorded/);
  expect(existsSync(join(r.project, 'v.json'))).toBe(false);
}, 150_000);

// Review of stop 52: --update-verdicts exited 0 (recorded) while that run's reports said FAILED for the peer's
// documented failures; they now judge the run against what it recorded, as the next run will be judged.
it('--update-verdicts: the reports of the run it records say it passed as pinned, as its exit code does', () => {
  const limit = [
    'name: the model keeps searching until the step limit stops the turn',
    'config: { maxSteps: 2 }',
    'tools:',
    '  - { name: search_kb, description: Search., sideEffect: NONE, behaviour: [{ return: { hits: [] } }] }',
    'provider:',
    '  script:',
    '    - tool_use: [{ id: s1, name: search_kb, args: { query: vpn } }]',
    '    - tool_use: [{ id: s2, name: search_kb, args: { query: vpn2 } }]',
    '    - reply: never asked',
    'inbox:',
    '  - say: VPN is down.',
    'expect:',
    '  outcome: "failed{max_steps}"',
    '',
  ].join('\n');
  const r = recordVerdicts('limit', limit, ['json', 'markdown']);
  expect(r.status, r.stderr).toBe(0);
  expect(JSON.parse(readFileSync(join(r.project, 'v.json'), 'utf8')).summary.failed).toBe(1);
  expect(readFileSync(join(r.project, 'out', 'summary.md'), 'utf8').split('\n')[0]).toMatch(/^## ✅ /);
  expect(JSON.parse(readFileSync(join(r.project, 'out', 'results.json'), 'utf8')).verdicts.differences).toEqual([]);
}, 150_000);
