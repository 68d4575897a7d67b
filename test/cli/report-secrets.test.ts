/**
 * A scenario's own text — its name, its tags — reaches no report unredacted
 * when it holds one of the run's secrets: results.json, JUnit, Markdown and
 * HTML pass the same redactor as the console (probe 9, P-3).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { REPORT_FILES } from '../../src/report/reporters.ts';
import { loopgate } from '../support/cli.ts';

// Matches no credential shape: only the scenario's `secrets:` says it is one.
const SECRET = 'tok_travel_9Xq7LmP2vR8sK4wZ';

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'loopgate-report-secrets-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('reports hold no secret of the scenario', () => {
  it('its name and tags are redacted in every report file and on the console', async () => {
    writeFileSync(
      join(dir, 'named.yaml'),
      [
        `name: "Refund for ${SECRET} fails loudly"`,
        `description: "card ${SECRET}"`,
        `tags: [${SECRET}, refunds]`,
        `secrets: [${SECRET}]`,
        'provider: { script: [ { reply: "ok" } ] }',
        'inbox: [ { say: "hi" } ]',
        'expect: { outcome: "failed{refusal}", history: { count: 2 }, trace: { exact: [] } }',
        '',
      ].join('\n'),
    );
    const result = await loopgate(['run', 'named.yaml', '--out', 'out'], dir);
    expect(result.status, result.stderr).toBe(EXIT.failed);
    expect(result.stdout + result.stderr).not.toContain(SECRET);
    for (const file of Object.values(REPORT_FILES)) {
      // Markdown escapes `_` and `[`: read every file with its escapes undone.
      const text = readFileSync(join(dir, 'out', file), 'utf8').replaceAll('\\', '');
      expect(text, file).not.toContain(SECRET);
      expect(text, file).toContain('[REDACTED]');
    }
    const json = JSON.parse(readFileSync(join(dir, 'out', REPORT_FILES.json), 'utf8'));
    for (const c of json.cases) {
      expect(c.title).toBe('Refund for [REDACTED] fails loudly' + (c.id.endsWith('@host') ? ' (through the production host)' : ''));
      expect(c.tags).toEqual(['[REDACTED]', 'refunds']);
    }
  });

  it('an agent that fails to build for a case, naming its own declared secret, is redacted in every report (outside probe 40, F5)', async () => {
    // The config's inspected build goes well; the case's own build throws with the agent's key in its words (a
    // session store refusing its password): the case fails in those words — never with the key in them.
    const project = mkdtempSync(join(dir, 'agent-'));
    const root = JSON.stringify(join(import.meta.dirname, '../../src/index.ts'));
    writeFileSync(
      join(project, 'loopgate.config.ts'),
      [
        `import { defineConfig } from ${root};`,
        'let builds = 0;',
        `const KEY = ${JSON.stringify(SECRET)};`,
        'export default defineConfig({ agents: { shop: () => {',
        '  builds += 1;',
        '  if (builds > Number(process.env.BUILDS_OK ?? 2)) throw new Error(`session store refused the password ${KEY}`);',
        "  return { system: 'You sell.', secrets: [KEY] };",
        '} } });',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(project, 'hello.yaml'),
      ['name: hello', 'provider: { script: [ { reply: "hi" } ] }', 'inbox: [ { say: "hi" } ]', 'expect: { outcome: replied }', ''].join('\n'),
    );
    // At load (the second of the config's two builds throws): one exit-2 line, the key redacted in it.
    const atLoad = await loopgate(['run', 'hello.yaml', '--out', 'out', '--host', 'loop'], project, { BUILDS_OK: '1' });
    expect(atLoad.status, atLoad.stderr).toBe(EXIT.usage);
    expect(atLoad.stderr).toContain('build 2 threw: session store refused the password [REDACTED]');
    expect(atLoad.stdout + atLoad.stderr).not.toContain(SECRET.slice(0, 12));
    const result = await loopgate(['run', 'hello.yaml', '--out', 'out', '--host', 'loop'], project);
    expect(result.status, result.stderr).toBe(EXIT.failed);
    expect(result.stdout + result.stderr).not.toContain(SECRET);
    for (const file of Object.values(REPORT_FILES)) {
      const text = readFileSync(join(project, 'out', file), 'utf8').replaceAll('\\', '');
      expect(text, file).not.toContain(SECRET.slice(0, 12));
      expect(text, file).toContain('session store refused the password');
    }
  });

  it('a case named with its secret that does what it expects passes: the name is the user’s, redacted where shown', async () => {
    // Outside probe 38, F3: invariant 15 rendered the case's report with its name as written and failed the case
    // ("a configured secret can be read back from the JSON report"), though every report written redacts the name.
    writeFileSync(
      join(dir, 'named-passing.yaml'),
      [
        `name: "Refund for ${SECRET}"`,
        `secrets: [${SECRET}]`,
        'provider: { script: [ { reply: "ok" } ] }',
        'inbox: [ { say: "hi" } ]',
        'expect: { outcome: replied, history: { count: 2 }, trace: { exact: [turn:ok, "turn > model_call:ok"] } }',
        '',
      ].join('\n'),
    );
    const result = await loopgate(['run', 'named-passing.yaml', '--out', 'out-passing'], dir);
    expect(result.stdout + result.stderr).not.toContain(SECRET);
    expect(result.status, result.stdout).toBe(EXIT.passed);
  });
});
