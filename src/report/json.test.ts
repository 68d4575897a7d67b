import { mkdtempSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleResults, withUncountedCost } from '../../test/report/sample-results.ts';
import { ReportFileError } from './file-error.ts';
import { readBaselineFile } from './baseline.ts';
import { parseResultsJson, readResultsFile, renderResultsJson } from './json.ts';
import type { RunResults } from './results.ts';

const mutate = (edit: (r: any) => void): string => {
  const data = JSON.parse(renderResultsJson(sampleResults()));
  edit(data);
  return JSON.stringify(data);
};

describe('results.json', () => {
  it('round-trips: what is written reads back equal', () => {
    const results = sampleResults();
    const back = parseResultsJson(renderResultsJson(results), 'results.json');
    expect(back).toEqual(JSON.parse(JSON.stringify(results)));
  });

  it('writes keys in a stable order whatever order they were built in', () => {
    const results = sampleResults();
    const shuffled = JSON.parse(JSON.stringify(results), (_key, value) =>
      value && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).reverse()) : value,
    ) as RunResults;
    expect(renderResultsJson(shuffled)).toBe(renderResultsJson(results));
    const text = renderResultsJson(results);
    expect(Object.keys(JSON.parse(text)).slice(0, 3)).toEqual(['schema', 'tool', 'startedAt']);
    expect(Object.keys(JSON.parse(text).cases[0]).slice(0, 2)).toEqual(['id', 'kind']);
    expect(text.endsWith('}\n')).toBe(true);
    expect(text).toContain('\n  "schema": "loopgate.results/v2",\n');
  });

  it('never throws on data that is not plain JSON, and keeps what it was', () => {
    const results = sampleResults();
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const odd = {
      ...results,
      cases: [{ ...results.cases[0]!, checks: [{ name: 'x', passed: false, message: 'm', expected: 10n, actual: { n: NaN, f: () => 1, cyclic } }] }],
    };
    const back = JSON.parse(renderResultsJson(odd as RunResults));
    expect(back.cases[0].checks[0]).toEqual({
      name: 'x',
      passed: false,
      message: 'm',
      expected: '10n',
      actual: { cyclic: { a: 1, self: '[circular]' }, f: '[function f]', n: 'NaN' },
    });
  });

  it('reads a v1 file (written before cost regressions) as v2, and refuses a cost regression in it no more than in v2', () => {
    const v1 = parseResultsJson(
      mutate((r) => {
        r.schema = 'loopgate.results/v1';
      }),
      'old.json',
    );
    expect(v1.schema).toBe('loopgate.results/v2');
    expect(v1.cases).toHaveLength(sampleResults().cases.length);
    expect(() =>
      parseResultsJson(
        mutate((r) => {
          r.regressions = [{ id: 'x', kind: 'price', message: 'm' }];
        }),
        'r.json',
      ),
    ).toThrow(/regressions\[0\]\.kind/);
  });

  it('keeps fields a newer v1 writer added (the version rule)', () => {
    const back = parseResultsJson(
      mutate((r) => {
        r.cases[0].flaky = true;
        r.host = 'ci-3';
      }),
      'results.json',
    ) as any;
    expect(back.cases[0].flaky).toBe(true);
    expect(back.host).toBe('ci-3');
  });

  it('names the file and the field when a case is malformed', () => {
    const text = mutate((r) => {
      r.cases[2].status = 'pass';
    });
    expect(() => parseResultsJson(text, 'shard-1/results.json')).toThrow(ReportFileError);
    expect(() => parseResultsJson(text, 'shard-1/results.json')).toThrow(
      /^shard-1\/results\.json: not a valid loopgate results file:\n  cases\[2\]\.status: .*\(got "pass"\)/,
    );
  });

  it('names missing required fields', () => {
    expect(() =>
      parseResultsJson(
        mutate((r) => {
          delete r.cases[1].id;
        }),
        'r.json',
      ),
    ).toThrow(/cases\[1\]\.id: .*\(got nothing\)/);
    expect(() =>
      parseResultsJson(
        mutate((r) => {
          r.startedAt = 'yesterday';
        }),
        'r.json',
      ),
    ).toThrow(/startedAt: .*\(got "yesterday"\)/);
    expect(() =>
      parseResultsJson(
        mutate((r) => {
          r.cases[0].checks[0].passed = 'yes';
        }),
        'r.json',
      ),
    ).toThrow(/cases\[0\]\.checks\[0\]\.passed/);
  });

  it('tells a wrong or newer file apart from a broken one', () => {
    expect(() => parseResultsJson('{"cases": [}', 'r.json')).toThrow(/^r\.json: not valid JSON/);
    expect(() => parseResultsJson('[]', 'r.json')).toThrow(/^r\.json: expected loopgate results file .*got an array of 0/);
    expect(() => parseResultsJson('{"testsuites": 1}', 'r.json')).toThrow(/^r\.json: no "schema" field/);
    expect(() =>
      parseResultsJson(
        mutate((r) => {
          r.schema = 'loopgate.results/v3';
        }),
        'r.json',
      ),
    ).toThrow(/different loopgate version \(schema "loopgate\.results\/v3"\); this loopgate reads "loopgate\.results\/v1" and "loopgate\.results\/v2"/);
    expect(() => parseResultsJson(JSON.stringify({ schema: 'loopgate.baseline/v1' }), 'b.json')).toThrow(
      /schema is "loopgate\.baseline\/v1"; expected loopgate results file/,
    );
  });

  it('reads a file from disk and names it when it is missing or a directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopgate-json-'));
    const file = join(dir, 'results.json');
    writeFileSync(file, renderResultsJson(sampleResults()));
    expect((await readResultsFile(file)).cases).toHaveLength(8);
    await expect(readResultsFile(join(dir, 'nope.json'))).rejects.toThrow(`${join(dir, 'nope.json')}: no such file`);
    // A symbolic link loop is named as one (probe 26, F2), for results and baselines alike.
    symlinkSync('loop-b.json', join(dir, 'loop-a.json'));
    symlinkSync('loop-a.json', join(dir, 'loop-b.json'));
    await expect(readResultsFile(join(dir, 'loop-a.json'))).rejects.toThrow(/loop-a\.json: a symbolic link loop: too many levels of symbolic links \(ELOOP\)/);
    await expect(readBaselineFile(join(dir, 'loop-a.json'))).rejects.toThrow(/loop-a\.json: a symbolic link loop: too many levels of symbolic links \(ELOOP\)/);
    mkdirSync(join(dir, 'sub'));
    await expect(readResultsFile(join(dir, 'sub'))).rejects.toThrow(/is a directory/);
  });
});

/** A case whose cost has a call with a token count ≥ 2^53 − 1 beside a priced one. */
describe('uncounted calls in results.json', () => {
  it('reads back the case, turn and suite counts of calls with a token count ≥ 2^53 − 1, in key order', () => {
    const results = withUncountedCost();
    const text = renderResultsJson(results);
    const read = parseResultsJson(text, 'r.json');
    expect(read.summary.cost).toEqual({ currency: 'USD', amount: 0.0042, unpricedCalls: 0, uncountedCalls: 1, cases: 1 });
    expect(read.cases.find((c) => c.id === 'scenario:refunds/approval-granted')?.metrics?.cost).toEqual(
      results.cases.find((c) => c.id === 'scenario:refunds/approval-granted')?.metrics?.cost,
    );
    expect(text).toContain('"unpricedCalls": 0,\n      "uncountedCalls": 1,\n      "cases": 1');
    expect(() => parseResultsJson(text.replace('"uncountedCalls": 1,\n      "cases"', '"uncountedCalls": -1,\n      "cases"'), 'r.json')).toThrow(
      /uncountedCalls/,
    );
  });
});
