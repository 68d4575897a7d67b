/**
 * A tool that changes the process's working folder (`process.chdir`, as a build
 * or deploy tool may) sent the reports where it went: `--out reports` was read
 * against the tool's folder when the run wrote them (outside probe 64, F18). The
 * run and the fuzzer write what they write where they started, and say that a
 * tool moved the working folder.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loopgate } from '../support/cli.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'loopgate-working-folder-'));
const elsewhere = join(dir, 'elsewhere');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a tool that moves the working folder', () => {
  mkdirSync(join(dir, 'project'));
  mkdirSync(elsewhere);
  const project = join(dir, 'project');
  writeFileSync(
    join(project, 'loopgate.config.ts'),
    [
      `import { z } from ${JSON.stringify(join(ROOT, 'node_modules/zod/index.js'))};`,
      `import { defineTool } from ${JSON.stringify(join(ROOT, 'src/index.ts'))};`,
      `const build = defineTool({ name: 'build', description: 'Builds the site', sideEffect: 'NONE', input: z.object({}),`,
      `  run: async () => { process.chdir(${JSON.stringify(elsewhere)}); return { built: true }; } });`,
      `export default { agents: { site: () => ({ tools: [build] }) }, scenarios: ['scenarios'] };`,
    ].join('\n'),
  );
  mkdirSync(join(project, 'scenarios'));
  writeFileSync(
    join(project, 'scenarios', 'build.yaml'),
    [
      'name: The agent builds the site',
      'inbox:',
      '  - say: Build the site, please.',
      'provider:',
      '  script:',
      '    - tool_use: [{ id: b1, name: build, args: {} }]',
      '    - reply: Built.',
      'expect:',
      '  outcome: replied',
      '  executions: { build: 1 }',
      '  history:',
      '    contains: [\'result#b1 ok: {"built":true}\']',
      '  trace:',
      "    contains: ['turn > tool:ok']",
      '',
    ].join('\n'),
  );

  it('run: the reports go where the run started, and it says a tool moved the folder', async () => {
    const result = await loopgate(['run', '--out', 'reports'], project);
    expect(result.status, result.stderr).toBe(0);
    expect(existsSync(join(project, 'reports', 'results.json'))).toBe(true);
    expect(existsSync(join(elsewhere, 'reports'))).toBe(false);
    expect(result.stderr).toContain(
      `loopgate: a tool changed the working folder to ${elsewhere} (process.chdir); what the run writes goes where it started, ${project}`,
    );
  });

  it('fuzz: the same', async () => {
    const result = await loopgate(['fuzz', '--runs', '200', '--seed', '1', '--out', 'fuzz-reports'], project);
    expect(existsSync(join(project, 'fuzz-reports', 'results.json')), result.stderr).toBe(true);
    expect(existsSync(join(elsewhere, 'fuzz-reports'))).toBe(false);
    expect(result.stderr).toContain('loopgate: a tool changed the working folder to');
  });
});
