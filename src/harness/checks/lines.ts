import type { CheckResult } from '../../report/results.ts';

export interface LinesMatcher {
  readonly exact?: readonly string[] | undefined;
  readonly contains?: readonly string[] | undefined;
  readonly excludes?: readonly string[] | undefined;
  readonly count?: number | undefined;
}

/** Checks rendered lines against a matcher; one CheckResult per clause. */
export function matchLines(name: string, lines: readonly string[], matcher: LinesMatcher): CheckResult[] {
  const out: CheckResult[] = [];
  if (matcher.exact) {
    const firstDiff = firstDifference(matcher.exact, lines);
    out.push(
      firstDiff === undefined
        ? { name, passed: true, message: `${lines.length} lines match exactly` }
        : {
            name,
            passed: false,
            message: `line ${firstDiff + 1} differs: expected ${shown(matcher.exact[firstDiff])}, got ${shown(lines[firstDiff])}`,
            expected: matcher.exact,
            actual: lines,
          },
    );
  }
  for (const needle of matcher.contains ?? []) {
    const found = lines.some((l) => l.includes(needle));
    out.push(
      found
        ? { name, passed: true, message: `contains ${JSON.stringify(needle)}` }
        : { name, passed: false, message: `no line contains ${JSON.stringify(needle)}`, expected: needle, actual: lines },
    );
  }
  for (const needle of matcher.excludes ?? []) {
    const line = lines.find((l) => l.includes(needle));
    out.push(
      line === undefined
        ? { name, passed: true, message: `excludes ${JSON.stringify(needle)}` }
        : { name, passed: false, message: `a line contains ${JSON.stringify(needle)} but must not`, expected: `no ${JSON.stringify(needle)}`, actual: line },
    );
  }
  if (matcher.count !== undefined) {
    out.push(
      lines.length === matcher.count
        ? { name, passed: true, message: `${lines.length} lines` }
        : { name, passed: false, message: `expected ${matcher.count} lines, got ${lines.length}`, expected: matcher.count, actual: lines },
    );
  }
  return out;
}

function firstDifference(a: readonly string[], b: readonly string[]): number | undefined {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return i;
  return undefined;
}

export function equalCheck(name: string, expected: unknown, actual: unknown, describe?: string): CheckResult {
  const passed = JSON.stringify(expected) === JSON.stringify(actual);
  return passed
    ? { name, passed, message: describe ?? `is ${JSON.stringify(actual)}` }
    : { name, passed, message: `expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`, expected, actual };
}

/** A line for a message: quoted and cut, or what stands where there is none. */
function shown(line: string | undefined): string {
  if (line === undefined) return '(no line)';
  return JSON.stringify(line.length > 120 ? `${line.slice(0, 119)}…` : line);
}
