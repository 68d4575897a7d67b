import { describe, expect, it } from 'vitest';
import { sampleCases, sampleResults } from '../../test/report/sample-results.ts';
import { mergeResults, MergeError } from './merge.ts';
import { suiteDigest, summarize, type CaseResult, type RunResults, type VerdictDifference } from './results.ts';

const shard = (cases: CaseResult[], index: number, total: number, startedAt: string, finishedAt: string): RunResults => ({
  ...sampleResults(cases),
  shard: { index, total },
  startedAt,
  finishedAt,
  durationMs: Date.parse(finishedAt) - Date.parse(startedAt),
});

describe('mergeResults', () => {
  const all = sampleCases();
  const one = all.filter((_, i) => i % 2 === 0);
  const two = all.filter((_, i) => i % 2 === 1);
  const a = shard(one, 1, 2, '2025-06-01T10:00:01.000Z', '2025-06-01T10:00:04.000Z');
  const b = shard(two, 2, 2, '2025-06-01T10:00:00.500Z', '2025-06-01T10:00:03.000Z');

  it('gives the cases of the unsharded run, sorted by id, with the summary recomputed', () => {
    const merged = mergeResults([
      { source: 'b.json', results: b },
      { source: 'a.json', results: a },
    ]);
    const sorted = [...all].sort((x, y) => (x.id < y.id ? -1 : 1));
    expect(merged.cases).toEqual(sorted);
    expect(merged.summary).toEqual(summarize(all));
    expect(merged.summary).toMatchObject({ total: 8, passed: 5, failed: 2, skipped: 1 });
  });

  it('spans the run from the first start to the last finish, and drops shard info and per-shard regressions', () => {
    const merged = mergeResults([
      { source: 'a.json', results: { ...a, regressions: [{ id: 'x', kind: 'missing', message: 'm' }] } },
      { source: 'b.json', results: b },
    ]);
    expect(merged.startedAt).toBe('2025-06-01T10:00:00.500Z');
    expect(merged.finishedAt).toBe('2025-06-01T10:00:04.000Z');
    expect(merged.durationMs).toBe(3500);
    expect(merged.shard).toBeUndefined();
    expect(merged.regressions).toBeUndefined();
    expect(merged.seed).toBe(42);
  });

  it('refuses a case that is in two files, naming both', () => {
    const overlapping = shard([...two, one[0]!], 2, 2, b.startedAt, b.finishedAt);
    expect(() =>
      mergeResults([
        { source: 'a.json', results: a },
        { source: 'b.json', results: overlapping },
      ]),
    ).toThrow(new MergeError('case "table:tool_use@MODEL_CALL" is in both a.json and b.json; shards must run disjoint cases (is a file given twice?)'));
    const twice = { ...sampleResults([one[0]!, one[0]!]) };
    expect(() => mergeResults([{ source: 'x.json', results: twice }])).toThrow('case "table:tool_use@MODEL_CALL" appears twice in x.json');
  });

  it('carries the shards’ comparison with the pinned verdicts, so the merged run passes as the unsharded one (outside probe 39, F5)', () => {
    const pinned = (differences: VerdictDifference[]) => ({
      file: 'verdicts/oa.json',
      differences,
    });
    const asPinned = mergeResults([
      { source: 'a.json', results: { ...a, verdicts: pinned([]) } },
      { source: 'b.json', results: { ...b, verdicts: pinned([]) } },
    ]);
    expect(asPinned.verdicts).toEqual({ file: 'verdicts/oa.json', differences: [] });
    const differs = mergeResults([
      { source: 'a.json', results: { ...a, verdicts: pinned([{ id: 'z', kind: 'newly fails', message: 'pinned passed; now failed' }]) } },
      { source: 'b.json', results: { ...b, verdicts: pinned([{ id: 'c', kind: 'not run', message: 'gone' }]) } },
    ]);
    expect(differs.verdicts?.differences.map((d) => d.id)).toEqual(['c', 'z']);
    expect(() =>
      mergeResults([
        { source: 'a.json', results: { ...a, verdicts: pinned([]) } },
        { source: 'b.json', results: b },
      ]),
    ).toThrow(
      new MergeError('a.json was judged against the pinned verdicts in verdicts/oa.json, b.json against none; run every shard with the same config and flags'),
    );
  });

  it('refuses a fuzz run’s results: it is no shard of a gate run (merged as 80 cases before: outside probe 6)', () => {
    const fuzz = { ...b, fuzz: { runs: 1000 } } as unknown as typeof b;
    expect(() =>
      mergeResults([
        { source: 'run/results.json', results: a },
        { source: 'fuzz/results.json', results: fuzz },
      ]),
    ).toThrow(
      new MergeError(
        'fuzz/results.json: the results of loopgate fuzz, not of a loopgate run shard; merge-reports merges the shards of one run (report the fuzz run on its own)',
      ),
    );
  });

  it('refuses shards of different runs', () => {
    expect(() =>
      mergeResults([
        { source: 'a.json', results: a },
        { source: 'b.json', results: { ...b, seed: 7 } },
      ]),
    ).toThrow('seeds differ: a.json has seed 42, b.json has seed 7; shards of one run share a seed (give every shard the same --seed)');
    expect(() =>
      mergeResults([
        { source: 'a.json', results: a },
        { source: 'b.json', results: { ...b, tool: { name: 'loopgate', version: '0.2.0' } } },
      ]),
    ).toThrow(/loopgate versions differ: a\.json was written by 0\.1\.0, b\.json by 0\.2\.0/);
  });

  it('refuses a missing, repeated or mismatched shard, which would change the verdict', () => {
    expect(() => mergeResults([{ source: 'a.json', results: a }])).toThrow('missing shard 2/2: the merged results would leave their cases out');
    const b3 = { ...b, shard: { index: 2, total: 3 } };
    expect(() =>
      mergeResults([
        { source: 'a.json', results: a },
        { source: 'b.json', results: b3 },
      ]),
    ).toThrow('shard counts differ: a.json is shard 1/2, b.json is shard 2/3');
    const a2 = { ...a, cases: [], summary: summarize([]) };
    expect(() =>
      mergeResults([
        { source: 'a.json', results: a },
        { source: 'a2.json', results: a2 },
      ]),
    ).toThrow('shard 1/2 given twice: a.json and a2.json');
    expect(() =>
      mergeResults([
        { source: 'a.json', results: a },
        { source: 'whole.json', results: sampleResults(two) },
      ]),
    ).toThrow('whole.json is a whole run but a.json is shard 1/2');
    expect(() => mergeResults([])).toThrow('nothing to merge');
  });

  it('refuses a part cut short or edited: its summary not its cases, a passed case with a failed check, shards short of their suite (probe 29, F3)', () => {
    const whole = { suite: { config: 'loopgate.config.ts', cases: 8, digest: suiteDigest(all.map((c) => c.id)) } };
    // Cases removed, the summary left as it was.
    expect(() =>
      mergeResults([
        { source: 'a.json', results: { ...a, ...whole } },
        { source: 'b.json', results: { ...b, ...whole, cases: [] } },
      ]),
    ).toThrow('b.json: its summary counts 4 (3 passed, 1 failed, 0 skipped) cases, but it holds 0 (0 passed, 0 failed, 0 skipped)');
    // Cases and summary removed alike: the shards no longer add up to their suite.
    expect(() =>
      mergeResults([
        { source: 'a.json', results: { ...a, ...whole } },
        { source: 'b.json', results: { ...b, ...whole, cases: [], summary: summarize([]) } },
      ]),
    ).toThrow('the shards hold 4 cases, not the 8 their suite selected');
    // A failure marked passed, the summary made to agree.
    const failing = two.find((c) => c.status === 'failed')!;
    const edited = two.map((c) => (c === failing ? { ...c, status: 'passed' as const } : c));
    expect(() =>
      mergeResults([
        { source: 'a.json', results: a },
        { source: 'b.json', results: { ...b, cases: edited, summary: summarize(edited) } },
      ]),
    ).toThrow(`b.json: case "${failing.id}" is marked passed, but its check "${failing.checks.find((c) => !c.passed)!.name}" failed`);
  });

  it('refuses shards built from different commits of the project (outside probe 60, LOW-1: a stale shard merged silently)', () => {
    const whole = suiteDigest(all.map((c) => c.id));
    const at = (commit: string | undefined) => ({ suite: { config: 'loopgate.config.ts', cases: 8, digest: whole, ...(commit ? { commit } : {}) } });
    const v1 = 'a'.repeat(40);
    const v2 = 'b'.repeat(40);
    expect(() =>
      mergeResults([
        { source: 'a.json', results: { ...a, ...at(v1) } },
        { source: 'b.json', results: { ...b, ...at(v2) } },
      ]),
    ).toThrow(
      new MergeError(
        `commits differ: a.json is shard 1/2 of commit ${v1.slice(0, 12)}, b.json is shard 2/2 of commit ${v2.slice(0, 12)}; shards of one run are made from one commit (a shard left from an earlier run?)`,
      ),
    );
    // One commit: merged, and recorded; a shard that does not know its commit is taken on trust.
    expect(
      mergeResults([
        { source: 'a.json', results: { ...a, ...at(v1) } },
        { source: 'b.json', results: { ...b, ...at(v1) } },
      ]).suite?.commit,
    ).toBe(v1);
    expect(
      mergeResults([
        { source: 'a.json', results: { ...a, ...at(v1) } },
        { source: 'b.json', results: { ...b, ...at(undefined) } },
      ]).suite?.commit,
    ).toBeUndefined();
  });

  it('refuses shards of different suites: another config, or another selection (paths, --grep) of one (probe 19, F1)', () => {
    const suite = (config: string, cases: number, digest: string) => ({ suite: { config, cases, digest } });
    const whole = suiteDigest(all.map((c) => c.id));
    const ours = { ...a, ...suite('loopgate.config.ts', 8, whole) };
    expect(() =>
      mergeResults([
        { source: 'a.json', results: ours },
        { source: 'b.json', results: { ...b, ...suite('bundled/loopgate.config.js', 8, whole) } },
      ]),
    ).toThrow(
      new MergeError(
        'configs differ: a.json is shard 1/2 of the suite of loopgate.config.ts, b.json is shard 2/2 of the suite of bundled/loopgate.config.js; shards of one run share one config',
      ),
    );
    expect(() =>
      mergeResults([
        { source: 'a.json', results: ours },
        { source: 'b.json', results: { ...b, ...suite('loopgate.config.ts', 5, 'fedcba9876543210') } },
      ]),
    ).toThrow(
      new MergeError(
        `suites differ: a.json is shard 1/2 of 8 cases (suite ${whole.slice(0, 8)}…), b.json is shard 2/2 of 5 cases (suite fedcba98…); shards of one run select the same cases (same config, paths and --grep)`,
      ),
    );
    // The merged run records the suite it covers; a shard written before suites were recorded is taken on trust.
    const merged = mergeResults([
      { source: 'a.json', results: ours },
      { source: 'b.json', results: { ...b, ...suite('loopgate.config.ts', 8, whole) } },
    ]);
    expect(merged.suite).toEqual({ config: 'loopgate.config.ts', cases: 8, digest: suiteDigest(merged.cases.map((c) => c.id)) });
    expect(
      mergeResults([
        { source: 'a.json', results: ours },
        { source: 'b.json', results: b },
      ]).suite,
    ).toBeUndefined();
  });

  it('merges whole runs of disjoint cases too (e.g. one job per kind)', () => {
    const tables = sampleResults(all.filter((c) => c.kind === 'table'));
    const rest = sampleResults(all.filter((c) => c.kind !== 'table'));
    expect(
      mergeResults([
        { source: 't', results: tables },
        { source: 'r', results: rest },
      ]).summary.total,
    ).toBe(8);
  });
});

describe('mergeResults across loops', () => {
  const all = sampleCases();
  const ofLoop = (name: string | undefined, cases: CaseResult[], index: number): RunResults => ({
    ...sampleResults(cases),
    shard: { index, total: 2 },
    ...(name !== undefined ? { loop: { name, version: name === 'loopgate' ? '0.1.0' : 'ai 6.0.0' } } : {}),
  });
  const one = all.filter((_, i) => i % 2 === 0);
  const two = all.filter((_, i) => i % 2 === 1);

  it('refuses shards of different loops, naming both (probe 17, F4)', () => {
    expect(() =>
      mergeResults([
        { source: 'ai.json', results: ofLoop('ai-sdk', one, 1) },
        { source: 'lg.json', results: ofLoop('loopgate', two, 2) },
      ]),
    ).toThrow(new MergeError('loops differ: ai.json ran ai-sdk, lg.json ran loopgate; shards of one run gate one loop'));
  });

  it("keeps the loop; a shard written before the field is loopgate's loop", () => {
    const merged = mergeResults([
      { source: 'a.json', results: ofLoop(undefined, one, 1) },
      { source: 'b.json', results: ofLoop('loopgate', two, 2) },
    ]);
    expect(merged.loop?.name).toBe('loopgate');
    const peer = mergeResults([
      { source: 'a.json', results: ofLoop('ai-sdk', one, 1) },
      { source: 'b.json', results: ofLoop('ai-sdk', two, 2) },
    ]);
    expect(peer.loop).toEqual({ name: 'ai-sdk', version: 'ai 6.0.0' });
  });
});
