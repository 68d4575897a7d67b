/**
 * `npm run gate-coverage`'s line accounting: V8's nested block ranges merged
 * over processes, code lines told from types and punctuation, spans. And its
 * arguments: a bad one runs nothing (exit 2).
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MEASURED_AREAS } from '../../scripts/gate-coverage/areas.ts';
import { lineCoverage, markRan, spans } from '../../scripts/gate-coverage/lines.ts';
import { areaFiles } from '../../scripts/mutate/areas.ts';

const SOURCE = [
  'import { x } from "./x.ts";', // 1: an import, not code
  'export interface Shape {', // 2: types only: stripped
  '  readonly a: number;', // 3
  '}', // 4
  'export function f(n: number): number {', // 5
  '  if (n > 0) {', // 6
  '    return n * 2;', // 7: never run
  '  }', // 8
  '  // a comment', // 9
  '  return 0;', // 10
  '}', // 11
].join('\n');

const offsetOf = (line: number) =>
  SOURCE.split('\n')
    .slice(0, line - 1)
    .join('\n').length + 1;

describe('gate coverage lines', () => {
  it('counts code lines only and lists the ones no process ran', () => {
    const ran = new Uint8Array(SOURCE.length);
    // One process: the module ran; f ran once with n <= 0, so its `if` body (lines 7-8) has count 0.
    markRan(
      {
        url: 'file:///x.ts',
        functions: [
          { ranges: [{ startOffset: 0, endOffset: SOURCE.length, count: 1 }] },
          {
            ranges: [
              { startOffset: offsetOf(5), endOffset: offsetOf(11) + 1, count: 1 },
              { startOffset: offsetOf(6) + 13, endOffset: offsetOf(8) + 3, count: 0 },
            ],
          },
        ],
      },
      SOURCE.length,
      ran,
    );
    const { code, notRun } = lineCoverage(SOURCE, ran);
    expect(code).toEqual([5, 6, 7, 10]);
    expect(notRun).toEqual([7]);
  });

  it('merges processes: a line one process ran is run', () => {
    const ran = new Uint8Array(SOURCE.length);
    const never = { url: 'file:///x.ts', functions: [{ ranges: [{ startOffset: 0, endOffset: SOURCE.length, count: 0 }] }] };
    markRan(never, SOURCE.length, ran);
    expect(lineCoverage(SOURCE, ran).notRun).toEqual([5, 6, 7, 10]);
    markRan({ url: 'file:///x.ts', functions: [{ ranges: [{ startOffset: offsetOf(10), endOffset: offsetOf(11), count: 3 }] }] }, SOURCE.length, ran);
    markRan(never, SOURCE.length, ran); // a later process that ran nothing takes nothing back
    expect(lineCoverage(SOURCE, ran).notRun).toEqual([5, 6, 7]);
  });

  it('writes line numbers as spans', () => {
    expect(spans([3, 4, 5, 9, 11, 12])).toBe('3-5, 9, 11-12');
    expect(spans([])).toBe('');
  });

  it('refuses a bad argument before running anything (exit 2)', () => {
    const root = resolve(import.meta.dirname, '../..');
    for (const argv of [['--runs', '0'], ['--runs'], ['--seed', '3']]) {
      const child = spawnSync(process.execPath, [join(root, 'scripts/gate-coverage.ts'), ...argv], { encoding: 'utf8' });
      expect(child.status, argv.join(' ')).toBe(2);
      expect(child.stderr).toMatch(/^gate-coverage: /);
      expect(child.stdout).toBe('');
    }
  });

  it('measures the mutated areas, the host and the stores among them, each file in one area', () => {
    const root = resolve(import.meta.dirname, '../..');
    const measured = areaFiles(root, MEASURED_AREAS);
    const areaOf = new Map(measured.map((f) => [f.file, f.area]));
    expect(measured.length).toBe(areaOf.size);
    // The mutated areas are the measured ones; the recovery stays its own.
    expect(measured).toEqual(areaFiles(root));
    expect(areaOf.get('src/host/recovery.ts')).toBe('recovery');
    expect(areaOf.get('src/host/conversation-writer.ts')).toBe('host');
    expect(areaOf.get('src/stores/sqlite-store.ts')).toBe('stores');
    expect(areaOf.get('src/stores/contract/cases.ts')).toBeUndefined();
    expect([...areaOf.keys()].filter((f) => f.endsWith('.test.ts'))).toEqual([]);
  });
});
