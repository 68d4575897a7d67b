/**
 * The compactor's answers, one per compaction (the last repeats): a summary that
 * shrinks the history (short or shorter, so a later compaction can re-summarise
 * what an earlier one replaced), nothing to compact, a failure, a "summary"
 * bigger than what it replaces — and a misbehaving compactor proposing a range
 * that is not whole closed turns: one that cuts a turn, splits a parallel batch,
 * overlaps an earlier compaction, is empty or lies outside the log. The loop must
 * refuse those; `compaction-keeps-turns-whole` checks every range it recorded.
 */
import fc from 'fast-check';
import { COMPACTION_RANGES, type Scenario } from '../../harness/scenario/schema.ts';

type CompactionStep = NonNullable<Scenario['compaction']>[number];

const summaryArb = fc.constantFrom('Earlier: the customer asked about a broken order.', 'Earlier: orders.');

export const compactionStepArb: fc.Arbitrary<CompactionStep> = fc.oneof(
  { withCrossShrink: true },
  { weight: 4, arbitrary: summaryArb.map((summary): CompactionStep => ({ summary })) },
  { weight: 1, arbitrary: fc.constant<CompactionStep>('none') },
  { weight: 1, arbitrary: fc.constant<CompactionStep>('fail') },
  { weight: 1, arbitrary: fc.constant<CompactionStep>('grow') },
  { weight: 3, arbitrary: fc.tuple(summaryArb, fc.constantFrom(...COMPACTION_RANGES)).map(([summary, range]): CompactionStep => ({ summary, range })) },
);

export const compactionArb: fc.Arbitrary<CompactionStep[]> = fc.array(compactionStepArb, { minLength: 1, maxLength: 3 });
