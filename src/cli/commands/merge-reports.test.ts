import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yargs from 'yargs';
import { describe, expect, it } from 'vitest';
import { sampleCases, sampleResults } from '../../../test/report/sample-results.ts';
import { renderBaselineJson, baselineFrom } from '../../report/baseline.ts';
import { parseResultsJson, renderResultsJson } from '../../report/json.ts';
import type { CaseResult, RunResults } from '../../report/results.ts';
import { UsageError } from '../usage-error.ts';
import { mergeReportsCommand } from './merge-reports-command.ts';
import { mergeReports, type MergeReportsArgs } from './merge-reports.ts';

/** Writes the sample run split into `n` shards (a disjoint subset each, as `--shard i/n` runs them). */
function writeShards(dir: string, cases: readonly CaseResult[], n: number, verdicts?: (index: number) => RunResults['verdicts']): string[] {
  return Array.from({ length: n }, (_, i) => {
    const shardDir = join(dir, `shard-${i + 1}`);
    mkdirSync(shardDir, { recursive: true });
    const mine = cases.filter((_, k) => k % n === i);
    const judged = verdicts?.(i + 1);
    const results: RunResults = { ...sampleResults(mine), shard: { index: i + 1, total: n }, ...(judged ? { verdicts: judged } : {}) };
    writeFileSync(join(shardDir, 'results.json'), renderResultsJson(results));
    return shardDir;
  });
}

const args = (files: string[], out: string, extra: Partial<MergeReportsArgs> = {}): MergeReportsArgs => ({
  files,
  out,
  reporter: ['console', 'json', 'junit', 'markdown', 'html'],
  ...extra,
});
const readOut = (out: string) => parseResultsJson(readFileSync(join(out, 'results.json'), 'utf8'), 'merged');

describe('merge-reports', () => {
  it('a peer run failing exactly as pinned merges to a pass, as the unsharded run exits; a difference fails it (outside probe 39, F5)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopgate-merge-pinned-'));
    const asPinned = writeShards(join(dir, 'pinned'), sampleCases(), 2, () => ({ file: 'verdicts/oa.json', differences: [] }));
    const printed: string[] = [];
    expect(await mergeReports(args(asPinned, join(dir, 'out-pinned')), (t) => printed.push(t))).toBe(0);
    expect(printed.join('')).toContain('fails exactly as documented: 8 case(s) judged as pinned in verdicts/oa.json');
    expect(readOut(join(dir, 'out-pinned')).verdicts).toEqual({ file: 'verdicts/oa.json', differences: [] });
    expect(readFileSync(join(dir, 'out-pinned', 'summary.md'), 'utf8').split('\n')[0]).toContain('✅');
    const differs = writeShards(join(dir, 'differs'), sampleCases(), 2, (i) => ({
      file: 'verdicts/oa.json',
      differences: i === 2 ? [{ id: 'scenario:refunds/once', kind: 'newly fails', message: 'pinned passed; now failed' }] : [],
    }));
    const told: string[] = [];
    expect(await mergeReports(args(differs, join(dir, 'out-differs')), (t) => told.push(t))).toBe(1);
    expect(told.join('')).toContain('differs from the pinned verdicts in verdicts/oa.json (1 case)');
  });

  it('merged shards 1/2 and 2/2 give the unsharded run: same ids, statuses, outcomes — and every report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopgate-merge-'));
    const shards = writeShards(dir, sampleCases(), 2);
    const out = join(dir, 'merged');
    const printed: string[] = [];
    const code = await mergeReports(args(shards.reverse(), out), (t) => printed.push(t));
    expect(code).toBe(1); // the sample run has failures
    const merged = readOut(out);
    const whole = sampleResults();
    const view = (r: RunResults) => r.cases.map((c) => [c.id, c.status, c.outcome]).sort();
    expect(view(merged)).toEqual(view(whole));
    expect(merged.cases).toEqual([...whole.cases].sort((a, b) => (a.id < b.id ? -1 : 1)).map((c) => JSON.parse(JSON.stringify(c))));
    expect(merged.summary).toEqual(whole.summary);
    expect(merged.shard).toBeUndefined();
    for (const file of ['junit.xml', 'summary.md', 'report.html']) expect(readFileSync(join(out, file), 'utf8').length).toBeGreaterThan(100);
    expect(printed.join('')).toContain('FAILED: 2 failed');
    expect(printed.join('')).toContain(`merged 2 results files (8 cases); wrote ${join(out, 'results.json')}`);
  });

  it('exits 0 when every merged case passed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopgate-merge-'));
    const shards = writeShards(
      dir,
      sampleCases().filter((c) => c.status !== 'failed'),
      3,
    );
    expect(
      await mergeReports(
        args(
          shards.map((s) => join(s, 'results.json')),
          join(dir, 'out'),
          { reporter: ['json'] },
        ),
        () => {},
      ),
    ).toBe(0);
  });

  it('compares the merged run with a baseline: a planted regression fails, an unchanged run passes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopgate-merge-'));
    const passing = sampleCases().filter((c) => c.status !== 'failed');
    const baselinePath = join(dir, 'baseline.json');
    writeFileSync(baselinePath, renderBaselineJson(baselineFrom(sampleResults(passing))));
    const same = writeShards(join(dir, 'same'), passing, 2);
    expect(await mergeReports(args(same, join(dir, 'out-same'), { reporter: ['json'], baseline: baselinePath }), () => {})).toBe(0);
    expect(readOut(join(dir, 'out-same')).regressions).toEqual([]);

    const planted = passing.map((c) => (c.id === 'scenario:refunds/approval-granted' ? { ...c, metrics: { ...c.metrics!, steps: 6 } } : c));
    const worse = writeShards(join(dir, 'worse'), planted, 2);
    expect(await mergeReports(args(worse, join(dir, 'out-worse'), { reporter: ['json'], baseline: baselinePath }), () => {})).toBe(1);
    expect(readOut(join(dir, 'out-worse')).regressions).toEqual([
      { id: 'scenario:refunds/approval-granted', kind: 'steps', message: 'steps 3 → 6 (+100%; allowed: +20% and at least +1)' },
    ]);
    expect(await mergeReports(args(worse, join(dir, 'out-loose'), { reporter: ['json'], baseline: baselinePath, stepsThreshold: 1.5 }), () => {})).toBe(0);
  });

  it('turns bad input into usage errors that name the file and the problem', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopgate-merge-'));
    const [one, two] = writeShards(dir, sampleCases(), 2) as [string, string];
    const out = join(dir, 'out');
    await expect(mergeReports(args([one], out), () => {})).rejects.toThrow(new UsageError('missing shard 2/2: the merged results would leave their cases out'));
    await expect(mergeReports(args([one, one, two], out), () => {})).rejects.toThrow(new UsageError(`${one}: given twice; give each shard's results once`));
    await expect(mergeReports(args([one, two, join(one, 'results.json')], out), () => {})).rejects.toThrow(
      new UsageError(`${one} and ${join(one, 'results.json')} are the same file, given twice; give each shard's results once`),
    );
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, readFileSync(join(two, 'results.json'), 'utf8').replace('"status": "passed"', '"status": "ok"'));
    await expect(mergeReports(args([one, broken], out), () => {})).rejects.toThrow(UsageError);
    await expect(mergeReports(args([one, broken], out), () => {})).rejects.toThrow(
      new RegExp(`^${broken.replace(/[.]/g, '\\.')}: not a valid loopgate results file:\\n  cases\\[\\d+\\]\\.status: .*\\(got "ok"\\)`),
    );
    await expect(mergeReports(args([one, join(dir, 'nope')], out), () => {})).rejects.toThrow(`${join(dir, 'nope')}: no such file`);
    await expect(mergeReports(args([one, two], out, { reporter: ['pdf'] }), () => {})).rejects.toThrow(
      'unknown reporter "pdf"; known reporters: console, json, junit, markdown, html',
    );
    await expect(mergeReports(args([one, two], out, { baseline: join(dir, 'missing-baseline.json') }), () => {})).rejects.toThrow(/no such baseline file/);
    // A baseline of another loop (outside probe 42, F6: compared, its differences told as 8 regressions, exit 1; run refuses it).
    const peerBaseline = join(dir, 'ai-sdk-baseline.json');
    writeFileSync(peerBaseline, renderBaselineJson(baselineFrom({ ...sampleResults(sampleCases()), loop: { name: 'ai-sdk', version: 'ai 6.0.0' } })));
    await expect(mergeReports(args([one, two], out, { baseline: peerBaseline }), () => {})).rejects.toThrow(
      new UsageError(`--baseline ${peerBaseline}: a baseline of loop ai-sdk; these shards gate loopgate: compare runs of one loop (keep a baseline per loop)`),
    );
    expect(existsSync(out)).toBe(false); // nothing written
  });

  it('parses its command line: files, --out, repeated and comma-separated --reporter, thresholds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopgate-merge-'));
    const shards = writeShards(
      dir,
      sampleCases().filter((c) => c.status !== 'failed'),
      2,
    );
    const out = join(dir, 'cli-out');
    const before = process.exitCode;
    try {
      await yargs(['merge-reports', ...shards, '--out', out, '--reporter', 'json,junit', '--reporter', 'markdown', '--steps-threshold', '0.5'])
        .command(mergeReportsCommand as never)
        .strict()
        .exitProcess(false)
        .parseAsync();
      expect(process.exitCode).toBe(0);
    } finally {
      process.exitCode = before;
    }
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toMatch(/^## ✅ loopgate: 5 passed, 1 skipped/);
    expect(() => readFileSync(join(out, 'report.html'))).toThrow();
  });
});
