import { join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { during, heldByLoopgate } from './watchdog.ts';

describe('whose code the watchdog blames', () => {
  const own = join(sep, 'app', 'node_modules', 'loopgate', 'dist', 'src');
  const ours = join(own, 'harness', 'invariants', 'support', 'naive-decodings.js');
  const theirs = join(sep, 'app', 'src', 'tools', 'charge.ts');
  // Outside probe 35, F8: invariant 15 on a 3,000-turn case was blamed on "the code under test".
  it("loopgate's own frame on top, as a path or a file: URL: loopgate's code", () => {
    expect(heldByLoopgate([`at new NaiveDecodings (${ours}:52:16)`, `at charge (${theirs}:3:1)`], own)).toBe(true);
    expect(heldByLoopgate([`at new NaiveDecodings (${pathToFileURL(ours).href}:52:16)`], own)).toBe(true);
  });
  it("the team's frame on top, or none: the code under test", () => {
    expect(heldByLoopgate([`at charge (${theirs}:3:1)`, `at run (${ours}:1:1)`], own)).toBe(false);
    expect(heldByLoopgate([`at charge (${pathToFileURL(theirs).href}:3:1)`], own)).toBe(false);
    expect(heldByLoopgate([], own)).toBe(false);
    // A sibling folder whose name starts like loopgate's (src-extra) is not loopgate's.
    expect(heldByLoopgate([`at x (${own}-extra${sep}y.js:1:1)`], own)).toBe(false);
  });
});

describe('where the watchdog says the thread was held', () => {
  // A 2,700-turn run held the thread writing its reports and was told "before any case started".
  it('before the cases, in a case, and after them', () => {
    expect(during(new Set(), false)).toBe('before any case started (loading the config, building the agents or collecting the cases)');
    expect(during(new Set(['scenario:a']), true)).toBe('in scenario:a');
    expect(during(new Set(), true)).toBe('after the cases (checking what they left, writing the reports)');
  });
});
