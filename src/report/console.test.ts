import { describe, expect, it } from 'vitest';
import { HOSTILE, sampleCases, sampleResults } from '../../test/report/sample-results.ts';
import { printable, renderConsole, wrap } from './console.ts';
import { summarize } from './results.ts';

describe('console report', () => {
  const text = renderConsole(sampleResults());

  it('lists each failed case with its outcome and failure, passed ones only as counts', () => {
    expect(text).toContain('table:cancel@TOOL_RUNNING');
    expect(text).toContain('cancelled{user}');
    expect(text).toContain('invariant 6: tool pairing');
    expect(text).toContain('scenario:refunds/rate-limited-then-');
    expect(text).not.toContain('scenario:refunds/approval-granted');
    expect(text).not.toContain('fuzz:seed-42/run-17');
    expect(text).toMatch(/^ {2}scenario {2}1 passed, 1 failed, 1 skipped \(3\)$/m);
    expect(text).toMatch(/^ {2}contract {2}2 passed \(2\)$/m);
    expect(text).not.toMatch(/^ {2}fuzz .*failed/m);
    expect(text.trimEnd().endsWith('FAILED: 2 failed')).toBe(true);
  });

  it('names skipped cases with their reason, never silently', () => {
    expect(text).toContain('○ scenario:live/refund-approval — live scenario: ANTHROPIC_API_KEY is not set');
  });

  it('lists every case, failed first, when verbose', () => {
    const verbose = renderConsole(sampleResults(), { verbose: true, width: 140 });
    const ids = sampleCases().map((c) => c.id);
    for (const id of ids) expect(verbose).toContain(id);
    expect(verbose.indexOf('table:cancel@TOOL_RUNNING')).toBeLessThan(verbose.indexOf('contract:anthropic/reply'));
  });

  it('never cuts a failure or an id off, and keeps lines within the width', () => {
    for (const width of [60, 70, 100, 140]) {
      for (const verbose of [false, true]) {
        const out = renderConsole(sampleResults(), { width, verbose });
        for (const line of out.split('\n')) if (line.startsWith('│') || line.startsWith('┌')) expect(line.length).toBeLessThanOrEqual(width);
      }
    }
    const narrow = renderConsole(sampleResults(), { width: 70 });
    const joined = narrow
      .split('\n')
      .filter((l) => l.startsWith('│'))
      .map((l) => l.split('│')[1]!.trim())
      .join('');
    expect(joined).toContain('scenario:refunds/rate-limited-then-timeout');
  });

  it('cannot be used to send escape sequences to the terminal', () => {
    expect(text).not.toMatch(/[\u0007\u001b]/);
    expect(text).toContain('\\x07bell\\x1b[31m');
    expect(HOSTILE).toContain('\u001b');
  });

  it('says PASSED with counts, and lists regressions', () => {
    const passing = sampleCases().filter((c) => c.status !== 'failed');
    const results = { ...sampleResults(passing), summary: summarize(passing) };
    expect(renderConsole(results).trimEnd().endsWith('PASSED: 5 of 6 (1 skipped)')).toBe(true);
    const regressed = { ...results, regressions: [{ id: 'scenario:refunds/approval-granted', kind: 'steps' as const, message: 'steps 3 → 5 (+67%)' }] };
    const out = renderConsole(regressed);
    expect(out).toContain('regressions against the baseline (1):');
    expect(out).toContain('✗ scenario:refunds/approval-granted [steps] steps 3 → 5 (+67%)');
    expect(out.trimEnd().endsWith('FAILED: 1 regression')).toBe(true);
  });

  it('a peer run failing exactly as pinned ends PASSED, as its exit code says; a difference ends FAILED naming it (outside probe 39, F5)', () => {
    const pinned = { ...sampleResults(), verdicts: { file: 'verdicts/oa.json', differences: [] } };
    expect(renderConsole(pinned).trimEnd().split('\n').at(-1)).toBe('PASSED as pinned: 5 passed, 2 failed as documented in verdicts/oa.json (1 skipped)');
    const differs = {
      ...pinned,
      verdicts: {
        file: 'verdicts/oa.json',
        differences: [{ id: 'scenario:refunds/once', kind: 'newly fails' as const, message: 'pinned passed; now failed' }],
      },
    };
    expect(renderConsole(differs).trimEnd().split('\n').at(-1)).toBe('FAILED: 1 difference from the pinned verdicts in verdicts/oa.json');
  });

  it('colours only when asked', () => {
    expect(renderConsole(sampleResults(), { color: true })).toContain('\u001b[31mFAILED: 2 failed\u001b[39m');
  });
});

describe('wrap and printable', () => {
  it('wraps at spaces and splits words longer than a line', () => {
    expect(wrap('aaa bbb ccc', 7)).toBe('aaa bbb\nccc');
    expect(wrap('abcdefghijkl', 5)).toBe('abcde\nfghij\nkl');
    expect(wrap('x', 5)).toBe('x');
    for (const line of wrap('some words then averyveryveryverylongword and more', 10).split('\n')) expect(line.length).toBeLessThanOrEqual(10);
  });
  it('shows control characters as escapes', () => {
    expect(printable('a\u0000b\u009bc')).toBe('a\\x00b\\x9bc');
  });
});

describe('console report of a broken build', () => {
  it('draws many failed cases with long failures (each cut at 2,000 characters), each line within the width, every id listed', () => {
    const long = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const failed = Array.from({ length: 30 }, (_, i) => ({
      ...sampleCases()[0]!,
      id: `scenario:broken/case-${i}`,
      status: 'failed' as const,
      checks: [{ name: 'crash-recovery', passed: false, message: long }],
    }));
    const results = { ...sampleResults(failed), summary: summarize(failed) };
    const out = renderConsole(results, { width: 100 });
    for (const line of out.split('\n')) if (line.startsWith('│')) expect(line.length).toBe(100);
    for (const c of failed) expect(out).toContain(c.id);
    expect(out.trimEnd().endsWith('FAILED: 30 failed')).toBe(true);
  });

  it('names the checks failing in the most cases, where one cause breaks hundreds (outside probe 68)', () => {
    const failed = Array.from({ length: 12 }, (_, i) => ({
      ...sampleCases()[0]!,
      id: `scenario:broken/case-${i}`,
      status: 'failed' as const,
      checks: [
        { name: 'outcomes', passed: i % 3 === 0, message: 'other outcome' },
        { name: 'crash-recovery', passed: false, message: 'a crash before the close' },
        { name: 'crash-recovery', passed: false, message: 'counted once per case' },
        ...(i < 2 ? [{ name: 'trace', passed: false, message: 'other trace' }] : []),
      ],
    }));
    const out = renderConsole({ ...sampleResults(failed), summary: summarize(failed) }, { width: 100 });
    expect(out).toContain('failing checks, by the failed cases they fail in (12):\n  12  crash-recovery\n   8  outcomes\n   2  trace\n');
    // A few failed cases are read one by one: no such list.
    expect(renderConsole(sampleResults())).not.toContain('failing checks');
  });
});
