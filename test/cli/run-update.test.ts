/**
 * Must show (issue 15): `loopgate run --update` on a scenario whose
 * `history.exact` (and trace, and outcome) went stale makes it pass, and leaves
 * its comments and formatting — the file comes back byte for byte as it was
 * before it went stale. A case whose invariants do not all hold is not updated,
 * and its file is left untouched; so is a file --update cannot edit as meant.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run, type RunArgs } from '../../src/cli/commands/run.ts';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { defineInvariant } from '../../src/harness/invariants/index.ts';
import { loadScenarioFile } from '../../src/harness/scenario/load.ts';
import { scenarioCase } from '../../src/harness/scenario-case.ts';
import type { UpdateResult } from '../../src/harness/update/update-scenario.ts';
import { readResultsFile } from '../../src/report/json.ts';
import { bundledContext, BUNDLED_ROOT } from '../support/bundled.ts';

const dir = mkdtempSync(join(tmpdir(), 'loopgate-update-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The bundled order-status scenario with comments of a team's own in and around its expectations. */
const CURRENT = readFileSync(join(BUNDLED_ROOT, 'refunds/order-status-lookup.yaml'), 'utf8')
  .replace('expect:\n', 'expect: # what the run must show\n')
  .replace('  history:\n    exact:\n', '  history:\n    # the whole conversation, one message a line\n    exact:\n')
  .replace("      - 'user: Where is my order ORD-1002?'\n", "      - 'user: Where is my order ORD-1002?' # the question\n")
  .replace('  trace:\n', '  # spans of the last turn\n  trace:\n');

/** The same file gone stale: the answer changed, the tool result dropped, a span too, the outcome wrong. */
const STALE = CURRENT.replace("'assistant: ORD-1002 (mug and tea) has shipped and is on its way.'", "'assistant: It shipped.'")
  .replace(/      - 'user: result#look ok: [^\n]*\n/, '')
  .replace('      - turn > tool > policy:ok\n', '')
  .replace('  outcome: replied\n', '  outcome: failed{max_steps} # stale\n');

const quiet = { out: () => {}, err: () => {}, tty: false };
const args = (over: Partial<RunArgs>): RunArgs => ({ reporter: ['json'], out: join(dir, 'out'), seed: 1, repeat: 1, ...over });

describe('loopgate run --update', () => {
  it('rewrites a stale history.exact, trace.exact and outcome: the scenario passes, its comments and formatting intact', async () => {
    expect(STALE).not.toBe(CURRENT);
    expect(STALE).toContain('# the whole conversation');
    const file = join(dir, 'order-status.yaml');
    writeFileSync(file, STALE);
    expect(await run(args({ paths: [file] }), quiet)).toBe(EXIT.failed);

    const err: string[] = [];
    const code = await run(args({ paths: [file], update: true }), { ...quiet, err: (t) => err.push(t) });
    expect(code).toBe(EXIT.passed);
    // Every byte as it was before it went stale: comments, quoting, flow maps, the folded description.
    expect(readFileSync(file, 'utf8')).toBe(CURRENT.replace('  outcome: replied\n', '  outcome: replied # stale\n'));
    const report = err.join('');
    expect(report).toContain('--update: rewrote 1 scenario file, 0 already up to date, 0 not updated');
    expect(report).toMatch(/✎ .*order-status\.yaml: expect\.outcome: failed\{max_steps\} → replied/);
    expect(report).toMatch(/✎ .*order-status\.yaml: expect\.history\.exact: 3 → 4 lines, from line 3/);
    expect(report).toMatch(/✎ .*order-status\.yaml: expect\.trace\.exact: 4 → 5 lines, from line 4/);
    // The case reports what it is now, and what was rewritten.
    const [c] = (await readResultsFile(join(dir, 'out/results.json'))).cases;
    expect(c!.status).toBe('passed');
    expect(c!.checks[0]).toMatchObject({ name: 'update', passed: true });

    // And without --update it passes from now on; a second --update changes nothing.
    expect(await run(args({ paths: [file] }), quiet)).toBe(EXIT.passed);
    const again: string[] = [];
    expect(await run(args({ paths: [file], update: true }), { ...quiet, err: (t) => again.push(t) })).toBe(EXIT.passed);
    expect(again.join('')).toContain('rewrote 0 scenario files, 1 already up to date');
  });

  // A file still failing on a key --update leaves alone was counted "already up to date" (outside probe 14, CLI-8).
  it('says which files still fail on expectations it does not rewrite, never "up to date"', async () => {
    const file = join(dir, 'requests-stale.yaml');
    writeFileSync(file, STALE.replace('  requests: 2\n', '  requests: 3 # stale, not rewritten\n'));
    const first: string[] = [];
    expect(await run(args({ paths: [file], update: true }), { ...quiet, err: (t) => first.push(t) })).toBe(EXIT.failed);
    expect(first.join('')).toContain('--update: rewrote 1 scenario file, 0 already up to date, 0 not updated; 1 still failing');
    expect(first.join('')).toMatch(/✗ .*requests-stale\.yaml: still failing on what --update does not rewrite: requests$/m);
    const again: string[] = [];
    expect(await run(args({ paths: [file], update: true }), { ...quiet, err: (t) => again.push(t) })).toBe(EXIT.failed);
    expect(again.join('')).toContain('--update: rewrote 0 scenario files, 0 already up to date, 0 not updated; 1 still failing');
    expect(again.join('')).toMatch(/✗ .*requests-stale\.yaml: still failing on what --update does not rewrite: requests$/m);
  });

  it('keeps a byte-order mark and CRLF line ends', async () => {
    const crlf = (text: string) => text.replace(/\n/g, '\r\n');
    const file = join(dir, 'bom-crlf.yaml');
    writeFileSync(file, `\ufeff${crlf(STALE)}`);
    expect(await run(args({ paths: [file], update: true }), quiet)).toBe(EXIT.passed);
    expect(readFileSync(file, 'utf8')).toBe(`\ufeff${crlf(CURRENT.replace('  outcome: replied\n', '  outcome: replied # stale\n'))}`);
  });

  it('does not update a case whose invariants do not all hold, and leaves its file untouched', async () => {
    const file = join(dir, 'broken-invariant.yaml');
    writeFileSync(file, STALE);
    const context = await bundledContext();
    const always = defineInvariant({ id: 'team-rule', title: 'a rule this run breaks', check: () => 'broken on purpose' });
    const updates: UpdateResult[] = [];
    const loaded = loadScenarioFile(file, dir);
    const outcome = await scenarioCase(loaded, { ...context, invariants: [...context.invariants, always], update: { record: (u) => updates.push(u) } }).run({
      seed: 1,
    });
    expect(outcome.status).toBe('failed');
    expect(updates).toEqual([{ kind: 'refused', file: loaded.file, reason: 'not updated: team-rule failed' }]);
    expect(readFileSync(file, 'utf8')).toBe(STALE);
  });

  it('writes the outcomes the check reads: a turn a crash left open and recovery closed counts too', async () => {
    // The crash scenario's first turn is closed `interrupted` by the reopened host's recovery, not returned by a loop.
    const current = readFileSync(join(BUNDLED_ROOT, 'crash/crash-before-refund-starts-not-run.yaml'), 'utf8');
    expect(current).toContain('  outcomes: [interrupted, replied]\n');
    const file = join(dir, 'crash-not-run.yaml');
    writeFileSync(file, current.replace('  outcomes: [interrupted, replied]\n', '  outcomes: [replied]\n'));
    expect(await run(args({ paths: [file] }), quiet)).toBe(EXIT.failed);
    expect(await run(args({ paths: [file], update: true }), quiet)).toBe(EXIT.passed);
    expect(readFileSync(file, 'utf8')).toBe(current);
    expect(await run(args({ paths: [file] }), quiet)).toBe(EXIT.passed);
  });

  // `turns.N` was left alone: a stale per-turn trace or last request had to be rewritten by hand (outside probe 65, F5).
  it('rewrites a turn’s stale outcome, requests, last request and trace (turns.N)', async () => {
    const current = readFileSync(join(BUNDLED_ROOT, 'crash/crash-while-refund-runs-never-reruns.yaml'), 'utf8');
    const stale = current
      .replace('    1:\n      outcome: replied\n      requests: 1\n', '    1:\n      outcome: failed{max_steps}\n      requests: 3\n')
      .replace("          - 'user: Please refund ORD-1001, it arrived broken.'\n", "          - 'user: Please refund it.'\n")
      .replace('          - turn > model_call:ok\n', '');
    expect(stale).not.toBe(current);
    const file = join(dir, 'crash-turns.yaml');
    writeFileSync(file, stale);
    expect(await run(args({ paths: [file] }), quiet)).toBe(EXIT.failed);
    const err: string[] = [];
    expect(await run(args({ paths: [file], update: true }), { ...quiet, err: (t) => err.push(t) })).toBe(EXIT.passed);
    expect(readFileSync(file, 'utf8')).toBe(current);
    const report = err.join('');
    expect(report).toMatch(/✎ .*crash-turns\.yaml: expect\.turns\.1\.outcome: failed\{max_steps\} → replied/);
    expect(report).toMatch(/✎ .*crash-turns\.yaml: expect\.turns\.1\.requests: 3 → 1/);
    expect(report).toMatch(/✎ .*crash-turns\.yaml: expect\.turns\.1\.lastRequest\.exact: 3 → 3 lines, from line 1/);
    expect(report).toMatch(/✎ .*crash-turns\.yaml: expect\.turns\.1\.trace\.exact: 1 → 2 lines, from line 2/);
    expect(await run(args({ paths: [file] }), quiet)).toBe(EXIT.passed);
  });

  it('cannot be combined with --live', async () => {
    await expect(run(args({ update: true, live: true, provider: 'anthropic' }), quiet)).rejects.toThrow(/--update .* cannot take a live run/);
  });
});
