import { describe, expect, it } from 'vitest';
import { INVARIANTS } from '../harness/invariants/index.ts';
import { fuzzResults } from './report.ts';
import type { FuzzResult } from './run-fuzz.ts';

const [first, second, third] = INVARIANTS;

function result(judged: [string, { runs: number; notJudged?: string }][], drawn: Partial<FuzzResult> = {}): FuzzResult {
  return {
    seed: 7,
    runs: 100,
    turns: 250,
    durationMs: 1000,
    runsPerSecond: 100,
    turnsPerSecond: 250,
    interrupted: false,
    invariants: [first!, second!, third!],
    judged: new Map(judged),
    drawn: new Map(),
    undrawn: [],
    ...drawn,
  };
}

describe('fuzz results: what each invariant was judged on', () => {
  it('says held over every run, over some of them with why not the rest, and skipped (with why) when judged in none', () => {
    const results = fuzzResults({
      result: result([
        [first!.id, { runs: 100 }],
        [second!.id, { runs: 40, notJudged: 'the host supplied the errorHandlers in place of the scenario’s' }],
        [third!.id, { runs: 0, notJudged: 'the host supplied the model in place of the scenario’s' }],
      ]),
      startedAt: new Date(0),
      finishedAt: new Date(1000),
      version: '0.0.0',
    });
    const [all, some, none, drew] = results.cases;
    expect(all).toMatchObject({ status: 'passed' });
    expect(all!.checks[0]!.message).toMatch(/^held over 100 run\(s\), 250 turn\(s\)/);
    expect(some).toMatchObject({ status: 'passed' });
    expect(some!.checks[0]!.message).toMatch(/^held over 40 of 100 run\(s\).*; not judged in the other 60: the host supplied the errorHandlers/);
    expect(none).toMatchObject({
      status: 'skipped',
      skipReason: 'not judged in any of the 100 run(s): the host supplied the model in place of the scenario’s',
    });
    expect(drew).toMatchObject({ id: 'fuzz:generator-draws-every-fault', status: 'passed' });
    expect(drew!.checks[0]!.message).toMatch(/^over 100 run\(s\): a provider error with retry-after 0, .*; too few runs to judge .*a crash \(from 500\)/);
    expect(results.summary).toMatchObject({ passed: 3, skipped: 1, failed: 0 });
  });

  it('fails the run when a family it should have drawn many times over was drawn in no case (a broken generator)', () => {
    const results = fuzzResults({
      result: result([[first!.id, { runs: 100 }]], { runs: 1000, drawn: new Map([['a steer', 630]]), undrawn: ['a provider error with retry-after'] }),
      startedAt: new Date(0),
      finishedAt: new Date(1000),
      version: '0.0.0',
    });
    const drew = results.cases.find((c) => c.id === 'fuzz:generator-draws-every-fault')!;
    expect(drew.status).toBe('failed');
    expect(drew.failure).toMatch(
      /^drew no a provider error with retry-after in 1000 run\(s\), where each should appear in at least 25: the fuzzer's generators are broken/,
    );
    expect(drew.failure).toMatch(/a steer 630/);
    expect(results.summary.failed).toBe(1);
  });
});
