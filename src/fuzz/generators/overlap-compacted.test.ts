/**
 * The case generator reaches a compaction proposed across an earlier one (outside
 * probe 18, S5): two or three turns reply, the next request overflows and the
 * compactor replaces them all with one summary, a turn or two more reply, the next
 * request overflows again and the compactor proposes a range that starts inside the
 * first summary. Drawn at random, a first compaction over two turns or more and a
 * second that overlaps it never came together: a loop that let the overlap through
 * passed every seed. Here the aimed cases are run: each one's second proposal cuts
 * through the first compaction, and the loop refuses it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LogEvent } from '../../kernel/index.ts';
import { runScenario } from '../../harness/second-host.ts';
import { fuzzCaseArb } from './scenario.ts';

// The aimed cases: an honest summary first, then the range across it, over the aim's script (its replies first).
const aimed = fc.sample(fuzzCaseArb(), { numRuns: 1_000, seed: 18 }).filter((c) => {
  const [first, second] = c.scenario.compaction ?? [];
  return (
    c.scenario.compaction?.length === 2 &&
    typeof first === 'object' &&
    !('range' in first) &&
    typeof second === 'object' &&
    'range' in second &&
    second.range === 'overlaps' &&
    c.scenario.provider.script[0]?.reply === 'Here is what I found.' &&
    c.scenario.provider.script.filter((s) => s.overflow !== undefined).length >= 2
  );
});

describe('fuzzCaseArb reaches a compaction proposed across an earlier one', () => {
  it('builds the sequence in a few percent of cases, through both hosts', () => {
    expect(aimed.length).toBeGreaterThan(20);
    expect(aimed.length).toBeLessThan(100);
    expect(new Set(aimed.map((c) => c.scenario.host ?? 'loop'))).toEqual(new Set(['production', 'loop']));
  });

  it('the second proposal cuts through the first compaction, and the loop refuses it', async () => {
    for (const c of aimed.slice(0, 12)) {
      const run = await runScenario(c.scenario, { seed: 1 });
      const calls = run.compactions ?? [];
      expect(calls.length, JSON.stringify(c.scenario.inbox)).toBeGreaterThanOrEqual(2);
      const replaced = run.log.events.filter((e) => !e.opaque && e.type === 'projection.replaced') as Extract<LogEvent, { type: 'projection.replaced' }>[];
      // The first compaction replaced two turns or more; the second proposal starts inside it and runs past its end.
      const first = replaced[0]!.payload;
      const opened = run.log.events.filter((e) => e.type === 'turn.opened' && e.seq > first.from && e.seq < first.to);
      expect(opened.length).toBeGreaterThanOrEqual(1);
      const second = calls[1]!.proposed;
      expect(second !== null && second !== 'threw' && second.from > first.from && second.from < first.to && second.to > first.to).toBe(true);
      // Refused: nothing replaced a second time.
      expect(replaced).toHaveLength(1);
    }
  });
});
