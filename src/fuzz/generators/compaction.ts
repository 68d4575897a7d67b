/**
 * The compactor's answers, one per compaction (the last repeats): a summary that
 * shrinks the history, nothing to compact, a failure, or a "summary" bigger than
 * what it replaces.
 */
import fc from 'fast-check';
import type { Scenario } from '../../harness/scenario/schema.ts';

type CompactionStep = NonNullable<Scenario['compaction']>[number];

export const compactionStepArb: fc.Arbitrary<CompactionStep> = fc.oneof(
  { withCrossShrink: true },
  fc.constant<CompactionStep>({ summary: 'Earlier: a broken order.' }),
  fc.constant<CompactionStep>('none'),
  fc.constant<CompactionStep>('fail'),
  fc.constant<CompactionStep>('grow'),
);

export const compactionArb: fc.Arbitrary<CompactionStep[]> = fc.array(compactionStepArb, { minLength: 1, maxLength: 3 });
