/**
 * A config found in a folder above the working directory is named on stderr: `npx loopgate run` in a sub-folder of
 * a team's project picked up the project's config silently, so a user who expected "without a config: everything
 * bundled" read the run as the bundled suite's (outside probe 63).
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loopgate } from '../support/cli.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'loopgate-config-above-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loopgate run in a folder below its config', () => {
  cpSync(join(ROOT, 'scenarios/bundled/refunds/order-status-lookup.yaml'), join(dir, 'order-status-lookup.yaml'));
  writeFileSync(
    join(dir, 'loopgate.config.ts'),
    `import { supportAgent } from ${JSON.stringify(join(ROOT, 'scenarios/example-agent/agent.ts'))};\nexport default { agents: { support: supportAgent }, scenarios: ['.'] };\n`,
  );
  mkdirSync(join(dir, 'sub'));

  it('names the config it found above on stderr', async () => {
    const result = await loopgate(['run', '--reporter', 'console', '--out', join(dir, 'out')], join(dir, 'sub'));
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain('loopgate: using ../loopgate.config.ts, found above this folder (--config names another)');
  });

  it('says nothing of it in the config’s own folder', async () => {
    const result = await loopgate(['run', '--reporter', 'console', '--out', join(dir, 'out')], dir);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('found above');
  });
});
