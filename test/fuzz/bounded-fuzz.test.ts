/**
 * A bounded fuzz run of the real loop in the normal test suite (a few seconds;
 * the long run is the nightly job, docs/ci/nightly-fuzz.yml), and proof that the
 * generators reach the states the invariants are about — a fuzzer whose cases all
 * end the same way would pass vacuously.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { outcomeLabel } from '../../src/kernel/index.ts';
import { fuzzPartsArb, toFuzzCase } from '../../src/fuzz/generators/scenario.ts';
import { runFuzz } from '../../src/fuzz/run-fuzz.ts';
import { bundledFuzzOptions } from '../support/bundled.ts';
import { INVARIANTS } from '../../src/harness/invariants/index.ts';
import { runScenario } from '../../src/harness/second-host.ts';
import { scenarioSchema } from '../../src/harness/scenario/schema.ts';

describe('bounded fuzz of the real loop', () => {
  it('holds every invariant over 400 generated cases', async () => {
    const result = await runFuzz({ runs: 400, seed: 424_242, ...(await bundledFuzzOptions()) });
    expect(result.failure && `${result.failure.invariant.id}: ${result.failure.message}`).toBeUndefined();
    expect(result.runs).toBe(400);
    expect(result.turns).toBeGreaterThan(400); // multi-turn conversations, not one turn per case
    expect(result.invariants.map((p) => p.id)).toEqual(INVARIANTS.map((p) => p.id));
  });

  it('checks the registry: one invariant for each numbered one it covers, plus the reference checks', () => {
    const numbered = INVARIANTS.map((p) => p.invariant)
      .filter((n) => n !== undefined)
      .sort((a, b) => a! - b!);
    expect(numbered).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    const ids = INVARIANTS.map((p) => p.id);
    for (const extra of ['projection-equals-replay', 'outcome-follows-table', 'crash-recovery']) expect(ids).toContain(extra);
  });
});

describe('the generators reach the states that matter', () => {
  it('cover the outcome alphabet, faults, cancels from every source, compaction, crashes and multi-turn runs', async () => {
    const outcomes = new Set<string>();
    const events = new Set<string>();
    const faults = new Set<string>();
    let crashes = 0;
    let multiTurn = 0;
    // A STATEFUL or CRITICAL call refused as a repeat of one that started, and one answered INTERRUPTED (the process died
    // while it ran) whose repeat after the reopen was refused too: what a repeat run again (probe 15, P11) or a start not
    // written ahead (P18) turns into a second run.
    let refusedRepeats = 0;
    let refusedAfterCrash = 0;
    const bundled = await bundledFuzzOptions();
    for (const parts of fc.sample(fuzzPartsArb(bundled.cases), { numRuns: 600, seed: 8 })) {
      const fuzzCase = toFuzzCase(parts);
      const run = await runScenario(scenarioSchema.parse(fuzzCase.scenario), { seed: 1, realWaitLimitMs: 250, ...bundled.host });
      for (const r of run.results) outcomes.add(outcomeLabel(r.outcome));
      for (const e of run.log.events) events.add(e.type);
      for (const f of run.faults) faults.add(f.label.replace(/\d+/g, 'N').split(' ').slice(0, 3).join(' '));
      if (fuzzCase.crashAt !== undefined) crashes++;
      if (run.results.length > 1) multiTurn++;
      const codes = run.log.events.flatMap((e) => {
        const error = e.type === 'tool.result' ? (e.payload as { error?: { error_code: string } }).error : undefined;
        return error ? [error.error_code] : [];
      });
      if (codes.includes('ALREADY_STARTED')) {
        refusedRepeats++;
        if (codes.includes('INTERRUPTED')) refusedAfterCrash++;
      }
    }
    for (const outcome of [
      'replied',
      'cancelled{user}',
      'cancelled{parent}',
      'cancelled{shutdown}',
      'rejected',
      'nothing_to_do',
      'conversation_full',
      'failed{max_steps}',
      'failed{budget_exhausted}',
      'failed{refusal}',
      'failed{max_tokens}',
      'failed{unknown_stop_reason}',
      'failed{empty_reply}',
      'failed{provider_unavailable}',
      'failed{auth}',
      'failed{invalid_request}',
      'failed{persistence}',
    ]) {
      expect(outcomes, `no generated case ended ${outcome}`).toContain(outcome);
    }
    for (const type of ['inbox.returned', 'projection.replaced', 'model.error_handled', 'policy.decision', 'cancel.requested'])
      expect(events, `no generated case logged ${type}`).toContain(type);
    for (const fault of ['store append N', 'compactor fails', 'tool probe hangs'])
      expect(
        [...faults].some((f) => f.startsWith(fault.split(' ').slice(0, 2).join(' '))),
        `no ${fault} fault`,
      ).toBe(true);
    expect(crashes).toBeGreaterThan(10);
    expect(multiTurn).toBeGreaterThan(200);
    expect(refusedRepeats).toBeGreaterThan(10);
    expect(refusedAfterCrash).toBeGreaterThan(5);
  });
});
