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
            message: `line ${firstDiff + 1} differs${shownPair(matcher.exact[firstDiff], lines[firstDiff])}`,
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

const SHOWN = 120;
/** Characters shown before the first one that differs, when a long line is cut to show where. */
const LEAD = 30;

/**
 * Two lines that differ, for a message: quoted and cut. When both are long and the
 * difference lies past what would be shown, both are shown from a little before
 * the first character that differs (and say where that is): two cuts that read
 * alike would hide it.
 */
function shownPair(expected: string | undefined, actual: string | undefined): string {
  if (expected === undefined || actual === undefined) return `: expected ${shown(expected, 0)}, got ${shown(actual, 0)}`;
  let at = 0;
  while (at < expected.length && at < actual.length && expected[at] === actual[at]) at++;
  const from = at < SHOWN - 20 ? 0 : at - LEAD;
  const where = from === 0 ? '' : ` at character ${at + 1}`;
  return `${where}: expected ${shown(expected, from)}, got ${shown(actual, from)}`;
}

/** A line for a message, from character `from`: quoted and cut, or what stands where there is none. */
function shown(line: string | undefined, from: number): string {
  if (line === undefined) return '(no line)';
  const head = from > 0 ? '…' : '';
  const rest = line.slice(from);
  return JSON.stringify(rest.length > SHOWN ? `${head}${rest.slice(0, SHOWN - 1)}…` : `${head}${rest}`);
}
