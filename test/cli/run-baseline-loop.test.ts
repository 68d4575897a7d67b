/**
 * The loop is part of a run's identity (probe 17, F4): a baseline taken with
 * `--loop loopgate` compared with an `--loop ai-sdk` run reported 11
 * "regressions" (6 of them `[missing] …@host`) instead of saying the two runs
 * gated different loops. A baseline of another loop is now refused, exit 2,
 * nothing run; a baseline written before the field is loopgate's own loop.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'loopgate-baseline-loop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const FILE = join(ROOT, 'scenarios/bundled/refunds/order-status-lookup.yaml');

function cli(args: string[]) {
  return spawnSync(process.execPath, [join(ROOT, 'bin/loopgate.js'), 'run', '--reporter', 'console', 'json', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true' },
  });
}

describe('loopgate run --baseline across loops', () => {
  it("refuses a baseline of loopgate's loop for an ai-sdk run (exit 2, nothing run), and one of ai-sdk for loopgate's", () => {
    const baseline = join(dir, 'loopgate.json');
    const taken = cli(['--loop', 'loopgate', FILE, '--baseline', baseline, '--update-baseline', '--out', join(dir, 'r0')]);
    expect(taken.status, taken.stderr).toBe(0);
    expect(JSON.parse(readFileSync(baseline, 'utf8')).loop).toEqual({ name: 'loopgate' });

    const other = cli(['--loop', 'ai-sdk', FILE, '--baseline', baseline, '--out', join(dir, 'r1')]);
    expect(other.status, `${other.stdout}\n${other.stderr}`).toBe(2);
    expect(other.stderr).toContain(`--baseline ${baseline}: a baseline of loop loopgate; this run gates ai-sdk`);
    expect(existsSync(join(dir, 'r1', 'results.json'))).toBe(false);

    const peerBaseline = join(dir, 'ai-sdk.json');
    expect(cli(['--loop', 'ai-sdk', FILE, '--baseline', peerBaseline, '--update-baseline', '--out', join(dir, 'r2')]).status).toBe(0);
    expect(cli(['--loop', 'ai-sdk', FILE, '--baseline', peerBaseline, '--out', join(dir, 'r3')]).status).toBe(0);
    const back = cli(['--loop', 'loopgate', FILE, '--baseline', peerBaseline, '--out', join(dir, 'r4')]);
    expect(back.status).toBe(2);
    expect(back.stderr).toContain('a baseline of loop ai-sdk; this run gates loopgate');
  });

  it("takes a baseline written before the loop was recorded as loopgate's loop", () => {
    const old = join(dir, 'old.json');
    expect(cli(['--loop', 'loopgate', FILE, '--baseline', old, '--update-baseline', '--out', join(dir, 'o0')]).status).toBe(0);
    const { loop: _loop, ...withoutLoop } = JSON.parse(readFileSync(old, 'utf8'));
    writeFileSync(old, JSON.stringify(withoutLoop));
    expect(cli(['--loop', 'loopgate', FILE, '--baseline', old, '--out', join(dir, 'o1')]).status).toBe(0);
    const peer = cli(['--loop', 'ai-sdk', FILE, '--baseline', old, '--out', join(dir, 'o2')]);
    expect(peer.status).toBe(2);
    expect(peer.stderr).toContain('a baseline of loop loopgate (written before loopgate recorded the loop: taken as loopgate); this run gates ai-sdk');
  });
});
