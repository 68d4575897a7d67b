import { describe, expect, it } from 'vitest';
import { compareVerdicts, notSelected, renderVerdictComparison, verdictsOf } from './peer-verdicts.ts';
import type { CaseResult } from './results.ts';

const c = (id: string, status: CaseResult['status'], checks: { name: string; passed: boolean; message: string }[] = [], outcome = 'replied'): CaseResult =>
  ({ id, kind: 'scenario', title: id, status, durationMs: 1, outcome, checks }) as CaseResult;

const pinned = verdictsOf('ai-sdk', 'ai 6.0.0', 1, [
  c('a', 'failed', [{ name: 'invariant-09-inbox-delivered-once', passed: false, message: 'lost' }]),
  c('b', 'passed', [{ name: 'diff: history', passed: true, message: 'same as loopgate: 3 lines' }]),
  c('s', 'skipped'),
  c('gone', 'passed'),
]);

describe('notSelected', () => {
  it('names the pinned cases a whole suite no longer selects, as a whole run tells them (a shard tells them once)', () => {
    expect(notSelected(pinned, ['a', 'b', 's'])).toEqual([
      { id: 'gone', kind: 'not run', message: 'pinned passed (replied); not in this run (renamed or gone?)' },
    ]);
    expect(notSelected(pinned, ['a', 'b', 's', 'gone'])).toEqual([]);
  });
});

describe('compareVerdicts', () => {
  it('a run that fails exactly as pinned has no difference; diff: clock is never pinned', () => {
    const now = [
      c('a', 'failed', [
        { name: 'invariant-09-inbox-delivered-once', passed: false, message: 'lost' },
        { name: 'diff: clock', passed: true, message: 'got 7' },
      ]),
      c('b', 'passed', [{ name: 'diff: history', passed: true, message: 'same as loopgate: 3 lines' }]),
      c('s', 'skipped'),
      c('gone', 'passed'),
    ];
    expect(compareVerdicts(pinned, now, true)).toEqual([]);
    expect(renderVerdictComparison('v.json', 'ai-sdk', [], 4)).toBe('ai-sdk fails exactly as documented: 4 case(s) judged as pinned in v.json\n');
  });

  it('a run whose every case was skipped as pinned says nothing was checked, not that the loop fails as documented', () => {
    // Outside probe 45, F10: the console said "fails exactly as documented", then "nothing was checked".
    expect(renderVerdictComparison('v.json', 'team', [], 3, 20, 3)).toBe('team skipped all 3 case(s), as pinned in v.json: nothing was checked\n');
    expect(renderVerdictComparison('v.json', 'team', [], 3, 20, 2)).toBe('team fails exactly as documented: 3 case(s) judged as pinned in v.json\n');
    // No case at all (review of stop 54: the console said "fails exactly as documented: 0 case(s)", the markdown not).
    expect(renderVerdictComparison('v.json', 'team', [], 0, 20, 0)).toBe('team ran no case, as pinned in v.json: nothing was checked\n');
  });

  it('a run whose every judged case passed, as pinned, says the loop passes, not that it fails as documented', () => {
    // Outside probe 54, LOW: a loop passing every case was said to "fail exactly as documented".
    expect(renderVerdictComparison('v.json', 'team', [], 4, 20, 1, 0)).toBe('team passes every case it ran, as pinned in v.json: 4 case(s), 1 skipped\n');
    expect(renderVerdictComparison('v.json', 'team', [], 4, 20, 0, 0)).toBe('team passes every case it ran, as pinned in v.json: 4 case(s)\n');
    expect(renderVerdictComparison('v.json', 'team', [], 4, 20, 0, 2)).toBe('team fails exactly as documented: 4 case(s) judged as pinned in v.json\n');
  });

  it('names a case that newly passes, newly fails, is judged differently, is not run or is not pinned', () => {
    const now = [c('a', 'passed'), c('b', 'failed', [{ name: 'outcome', passed: false, message: 'expected x' }]), c('s', 'skipped'), c('new', 'passed')];
    const kinds = compareVerdicts(pinned, now, true).map((d) => `${d.id} ${d.kind}`);
    expect(kinds).toEqual(['a newly passes', 'b newly fails', 'new not pinned', 'gone not run']);
    // A partial run does not report the pinned cases it did not select.
    expect(compareVerdicts(pinned, [c('a', 'passed')], false).map((d) => d.kind)).toEqual(['newly passes']);
  });

  it('a case that fails the same way on other lines, or persists other lines, is a difference', () => {
    const now = [
      c('a', 'failed', [{ name: 'invariant-09-inbox-delivered-once', passed: false, message: 'lost twice' }]),
      c('b', 'passed', [{ name: 'diff: history', passed: true, message: 'differs from loopgate: line 3' }]),
    ];
    const differences = compareVerdicts(pinned, now, false);
    expect(differences.map((d) => `${d.id} ${d.kind}`)).toEqual(['a judged differently', 'b judged differently']);
    expect(differences[0]!.message).toBe('pinned: ✗ invariant-09-inbox-delivered-once: lost\nnow:    ✗ invariant-09-inbox-delivered-once: lost twice');
  });

  it("the peer's persisted history is pinned line by line: a line it keeps otherwise is a difference; other passed checks are not pinned", () => {
    const persisted = (line: string) => [
      { name: 'persisted 000', passed: true, message: 'user: Refund ORD-1.' },
      { name: 'persisted 001', passed: true, message: line },
      { name: 'invariant-05-failed-turns-add-nothing', passed: true, message: 'held' },
    ];
    const before = verdictsOf('openai-agents', '0.20.0', 1, [c('t', 'passed', persisted('user: result#r1 unknown: timed out'))]);
    expect(before.cases.t!.lines).toEqual(['~ persisted 000: user: Refund ORD-1.', '~ persisted 001: user: result#r1 unknown: timed out']);
    const differences = compareVerdicts(before, [c('t', 'passed', persisted('user: result#r1 failed: timed out'))], false);
    expect(differences.map((d) => d.message)).toEqual([
      'pinned: ~ persisted 001: user: result#r1 unknown: timed out\nnow:    ~ persisted 001: user: result#r1 failed: timed out',
    ]);
  });
});
