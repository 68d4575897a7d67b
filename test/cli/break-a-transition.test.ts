/**
 * The gate catches a broken loop: this test breaks one transition — a refusal is
 * closed as `replied` — in test code (a Node module hook rewrites the loop's
 * source as it loads, the repository is untouched), runs the real
 * `loopgate run`, and expects exit 1 naming the failing cell.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'loopgate-broken-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ORIGINAL = "      case 'refusal':\n        return { kind: 'failed', reason: 'refusal'";
const BROKEN = "      case 'refusal':\n        return { kind: 'replied' }; return { kind: 'failed', reason: 'refusal'";

function loopgate(args: string[], hook?: string) {
  return spawnSync(process.execPath, [...(hook ? ['--import', hook] : []), join(ROOT, 'bin/loopgate.js'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    // The hook rewrites the loop's TypeScript source: the sources must run, not a build.
    env: { ...process.env, CI: 'true', LOOPGATE_RUN_SOURCES: '1' },
  });
}

describe('loopgate run against a loop with one transition broken', () => {
  it('the transition the hook rewrites is really in the loop (so the test cannot pass vacuously)', () => {
    expect(readFileSync(join(ROOT, 'src/kernel/loop/runner.ts'), 'utf8')).toContain(ORIGINAL);
  });

  it('exits 1 and names the failing cell', () => {
    const hooks = join(dir, 'hooks.mjs');
    writeFileSync(
      hooks,
      `export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (!url.endsWith('/src/kernel/loop/runner.ts')) return result;
  const source = String(result.source);
  const broken = source.replace(${JSON.stringify(ORIGINAL)}, ${JSON.stringify(BROKEN)});
  if (broken === source) throw new Error('the hook found nothing to break');
  return { ...result, source: broken };
}
`,
    );
    const register = join(dir, 'register.mjs');
    writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hooks}`)});\n`);

    const broken = loopgate(['run', '--grep', '^table:', '--reporter', 'console', '--out', join(dir, 'out')], register);
    expect(broken.status, broken.stderr).toBe(1);
    expect(broken.stdout + broken.stderr).toMatch(/table:refusal@MODEL/);
    expect(broken.stdout + broken.stderr).toMatch(/cell: failed\{refusal\}.*the loop closed the turn as replied/);

    const intact = loopgate(['run', '--grep', '^table:refusal@', '--reporter', 'console', '--out', join(dir, 'out2')]);
    expect(intact.status, intact.stderr).toBe(0);
  });
});
