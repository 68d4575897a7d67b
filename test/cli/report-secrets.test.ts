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
