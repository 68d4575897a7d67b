/**
 * A user's invariant that throws is one line in every report: which invariant,
 * what it threw, where in the user's file — never a stack of loopgate's own
 * frames (probe 9, P-4).
 */
import { describe, expect, it } from 'vitest';
import type { ScenarioRun } from '../second-host.ts';
import { checkInvariants, INVARIANTS, verdictOf, type Invariant, type InvariantContext } from './index.ts';

const run = {} as ScenarioRun;
const context = {} as InvariantContext;

describe('an invariant that throws', () => {
  it("is one line naming the invariant, the error and the line of the user's file that threw", async () => {
    const boom: Invariant = {
      id: 'travel-charges-once',
      title: 'a card is charged once',
      check() {
        throw new Error('my invariant crashed');
      },
    };
    const verdict = await verdictOf(boom, run, context);
    expect(verdict).toMatch(
      /^the check threw: Error: my invariant crashed \(invariant travel-charges-once, at src\/harness\/invariants\/verdict\.test\.ts:\d+:\d+\)$/,
    );
  });

  it('something not an Error is quoted as it was thrown, on one line', async () => {
    const odd: Invariant = {
      id: 'odd',
      title: 'throws a string',
      check() {
        throw 'no\nnewlines';
      },
    };
    expect(await verdictOf(odd, run, context)).toBe('the check threw: no newlines (invariant odd)');
  });

  it("one of loopgate's own keeps its stack: that is loopgate's bug to report", async () => {
    const builtIn = await verdictOf(INVARIANTS[1]!, run, context); // an empty run: it throws
    expect(builtIn).toMatch(/^the check threw: [\s\S]*\n\s+at /);
  });
});

describe('invariants checked one after another', () => {
  // Long scenarios make each check long (every request carries the whole history): a run of invariants that never
  // gave the thread back held it for their sum, and the hang watchdog, whose heartbeat is a timer, stopped a legal
  // 2,700-turn case as stuck (outside probe 35, F8). Between two invariants, timers run.
  it('give the thread back after a long one: a timer due during it has fired before the next', async () => {
    let fired = false;
    const first: Invariant = {
      id: 'first',
      title: 'sets a timer, then holds the thread for 120 ms',
      check() {
        setTimeout(() => {
          fired = true;
        }, 0);
        const until = performance.now() + 120;
        while (performance.now() < until);
        return undefined;
      },
    };
    const second: Invariant = { id: 'second', title: 'sees it fired', check: () => (fired ? undefined : 'the timer had not fired') };
    const checks = await checkInvariants(run, [first, second], context);
    expect(checks.map((c) => [c.name, c.message])).toEqual([
      ['first', 'holds'],
      ['second', 'holds'],
    ]);
  });
});
