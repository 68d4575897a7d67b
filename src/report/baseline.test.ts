import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleCases, sampleResults, withUncountedCost } from '../../test/report/sample-results.ts';
import { type Baseline, baselineFrom, compareWithBaseline, parseBaselineJson, readBaselineFile, renderBaselineJson, writeBaselineFile } from './baseline.ts';
import { ReportFileError } from './file-error.ts';
import { renderResultsJson } from './json.ts';
import type { CaseResult, RunResults } from './results.ts';

const GRANTED = 'scenario:refunds/approval-granted';
const baseline = baselineFrom(sampleResults());

/** The sample run with one case changed. */
const withCase = (id: string, change: (c: CaseResult) => CaseResult | undefined): RunResults =>
  sampleResults(sampleCases().flatMap((c) => (c.id === id ? [change(c)].filter((x): x is CaseResult => x !== undefined) : [c])));
const withMetrics = (steps: number, tokens: number) =>
  withCase(GRANTED, (c) => ({ ...c, metrics: { ...c.metrics!, steps, inputTokens: tokens - 180, outputTokens: 180 } }));

describe('baselineFrom', () => {
  it('keeps per case its status, steps and input+output tokens, ids sorted', () => {
    expect(baseline.schema).toBe('loopgate.baseline/v1');
    expect(Object.keys(baseline.cases)).toEqual([...Object.keys(baseline.cases)].sort());
    expect(baseline.cases[GRANTED]).toEqual({ status: 'passed', steps: 3, tokens: 2680 });
    expect(baseline.cases['contract:anthropic/reply']).toEqual({ status: 'passed' });
    expect(baseline.cases['table:cancel@TOOL_RUNNING']!.status).toBe('failed');
  });

  it('round-trips through its file, one line per case', () => {
    const text = renderBaselineJson(baseline);
    expect(parseBaselineJson(text, 'baseline.json')).toEqual(baseline);
    expect(text).toContain(`\n    "${GRANTED}": {"status":"passed","steps":3,"tokens":2680},\n`);
    expect(parseBaselineJson(renderBaselineJson(baselineFrom(sampleResults([]))), 'b.json').cases).toEqual({});
  });

  // Outside probe 64, F1: a case's input (2^53 − 1, as the kernel holds a count past it) plus output was written as
  // 2^53, and the next --baseline run refused the file loopgate had written (exit 2).
  it('writes a token sum past 2^53 − 1 as 2^53 − 1 ("at least"), and reads it back', () => {
    const huge = baselineFrom(withCase(GRANTED, (c) => ({ ...c, metrics: { ...c.metrics!, inputTokens: Number.MAX_SAFE_INTEGER, outputTokens: 1 } })));
    expect(huge.cases[GRANTED]!.tokens).toBe(Number.MAX_SAFE_INTEGER);
    expect(parseBaselineJson(renderBaselineJson(huge), 'b.json').cases[GRANTED]!.tokens).toBe(Number.MAX_SAFE_INTEGER);
  });
});

describe('compareWithBaseline', () => {
  it('passes an unchanged run', () => {
    expect(compareWithBaseline(sampleResults(), baseline)).toEqual([]);
  });

  it('catches a case that passed in the baseline and fails now', () => {
    const failing = withCase(GRANTED, (c) => ({ ...c, status: 'failed', failure: 'outcome: expected replied, got failed{max_steps}' }));
    expect(compareWithBaseline(failing, baseline)).toEqual([
      { id: GRANTED, kind: 'status', message: 'passed in the baseline, fails now: outcome: expected replied, got failed{max_steps}' },
    ]);
  });

  it('does not count a known failure, a fix, or a skip as a regression', () => {
    const fixed = withCase('table:cancel@TOOL_RUNNING', (c) => ({ ...c, status: 'passed', failure: undefined }));
    expect(compareWithBaseline(fixed, baseline)).toEqual([]);
    const skipped = withCase(GRANTED, (c) => ({ ...c, status: 'skipped', skipReason: 'live' }));
    expect(compareWithBaseline(skipped, baseline)).toEqual([]);
  });

  it('catches more steps beyond the threshold, ignoring noise below the minimum', () => {
    expect(compareWithBaseline(withMetrics(4, 2680), baseline)).toEqual([
      { id: GRANTED, kind: 'steps', message: 'steps 3 → 4 (+33%; allowed: +20% and at least +1)' },
    ]);
    expect(compareWithBaseline(withMetrics(4, 2680), baseline, { stepsThreshold: 0.5 })).toEqual([]);
    expect(compareWithBaseline(withMetrics(4, 2680), baseline, { minSteps: 2 })).toEqual([]);
    expect(compareWithBaseline(withMetrics(2, 2680), baseline)).toEqual([]); // fewer is better
  });

  it('catches more tokens beyond the threshold and the minimum', () => {
    expect(compareWithBaseline(withMetrics(3, 3300), baseline)).toEqual([
      { id: GRANTED, kind: 'tokens', message: 'tokens (input + output) 2680 → 3300 (+23%; allowed: +20% and at least +100)' },
    ]);
    expect(compareWithBaseline(withMetrics(3, 3200), baseline)).toEqual([]); // +19 %
    const small = baselineFrom(withMetrics(3, 200));
    expect(compareWithBaseline(withMetrics(3, 290), small)).toEqual([]); // +45 % but only +90 tokens
    expect(compareWithBaseline(withMetrics(3, 300), small)).toHaveLength(1);
  });

  it('reports baseline cases missing from this run, unless the run is partial', () => {
    const gone = withCase('fuzz:seed-42/run-17', () => undefined);
    expect(compareWithBaseline(gone, baseline)).toEqual([{ id: 'fuzz:seed-42/run-17', kind: 'missing', message: 'in the baseline (passed), not in this run' }]);
    expect(compareWithBaseline(gone, baseline, { reportMissing: false })).toEqual([]);
  });

  it('sorts regressions by case, and refuses a bad threshold', () => {
    const both = sampleResults(
      sampleCases()
        .filter((c) => c.id !== 'fuzz:seed-42/run-17')
        .map((c) => (c.id === GRANTED ? { ...c, metrics: { ...c.metrics!, steps: 9, inputTokens: 9000 } } : c)),
    );
    expect(compareWithBaseline(both, baseline).map((r) => `${r.id} ${r.kind}`)).toEqual([
      'fuzz:seed-42/run-17 missing',
      `${GRANTED} steps`,
      `${GRANTED} tokens`,
    ]);
    expect(() => compareWithBaseline(both, baseline, { stepsThreshold: -1 })).toThrow('baseline stepsThreshold must be a number ≥ 0, got -1');
    expect(() => compareWithBaseline(both, baseline, { minTokens: Number.NaN })).toThrow(/minTokens/);
  });
});

describe('baseline files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopgate-baseline-'));

  it('writes and reads back a baseline; reads a results.json as the baseline it gives', async () => {
    const path = join(dir, 'nested', 'baseline.json');
    await writeBaselineFile(path, sampleResults());
    expect(await readBaselineFile(path)).toEqual(baseline);
    const results = join(dir, 'results.json');
    writeFileSync(results, renderResultsJson(sampleResults()));
    expect(await readBaselineFile(results)).toEqual(baseline);
  });

  it('names the file and the field when it is not a valid baseline', async () => {
    const bad = JSON.parse(renderBaselineJson(baseline));
    bad.cases[GRANTED].steps = -2;
    expect(() => parseBaselineJson(JSON.stringify(bad), 'b.json')).toThrow(ReportFileError);
    expect(() => parseBaselineJson(JSON.stringify(bad), 'b.json')).toThrow(
      new RegExp(`^b\\.json: not a valid loopgate baseline file:\\n  cases\\.${GRANTED.replace(/[./]/g, '\\$&')}\\.steps: .*\\(got -2\\)`),
    );
    expect(() => parseBaselineJson('{"schema":"loopgate.baseline/v2"}', 'b.json')).toThrow(
      'b.json: written by a different loopgate version (schema "loopgate.baseline/v2"); this loopgate reads "loopgate.baseline/v1"',
    );
    await expect(readBaselineFile(join(dir, 'none.json'))).rejects.toThrow('none.json: no such baseline file (create one with --update-baseline)');
  });
});

/** A case whose cost has a call with a token count ≥ 2^53 − 1 beside a priced one. */
describe('a cost with calls of 2^53 − 1 tokens or more', () => {
  it('is no baseline, and no cost regression however large its priced part grows', () => {
    const results = withUncountedCost();
    expect(baselineFrom(results).cases['scenario:refunds/approval-granted']).not.toHaveProperty('cost');
    const priced: Baseline = {
      ...baselineFrom(sampleResults()),
      cases: {
        ...baselineFrom(sampleResults()).cases,
        'scenario:refunds/approval-granted': { status: 'passed', steps: 3, tokens: 2680, cost: 0.0001, currency: 'USD' },
      },
    };
    expect(compareWithBaseline(results, priced)).toEqual([]);
    // The same growth with every call priced is a regression: the skip above is the uncounted call's.
    const complete = sampleResults(
      results.cases.map((c) => (c.metrics?.cost ? { ...c, metrics: { ...c.metrics, cost: { ...c.metrics.cost, uncountedCalls: undefined } } } : c)),
    );
    expect(compareWithBaseline(complete, priced).map((r) => r.kind)).toEqual(['cost']);
  });
});
