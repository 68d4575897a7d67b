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
import { COMPACTION_RANGES, type InboxEntry, type ProviderStep, type Scenario } from '../../harness/scenario/schema.ts';
import { isPost } from './inbox.ts';

type CompactionStep = NonNullable<Scenario['compaction']>[number];

const summaryArb = fc.constantFrom('Earlier: the user asked about a task that failed.', 'Earlier: a task.');

export const compactionStepArb: fc.Arbitrary<CompactionStep> = fc.oneof(
  { withCrossShrink: true },
  { weight: 4, arbitrary: summaryArb.map((summary): CompactionStep => ({ summary })) },
  { weight: 1, arbitrary: fc.constant<CompactionStep>('none') },
  { weight: 1, arbitrary: fc.constant<CompactionStep>('fail') },
  { weight: 1, arbitrary: fc.constant<CompactionStep>('grow') },
  { weight: 3, arbitrary: fc.tuple(summaryArb, fc.constantFrom(...COMPACTION_RANGES)).map(([summary, range]): CompactionStep => ({ summary, range })) },
);

export const compactionArb: fc.Arbitrary<CompactionStep[]> = fc.array(compactionStepArb, { minLength: 1, maxLength: 3 });

/**
 * A case aimed at a compaction proposed across an earlier one: `before` turns reply (two or three), the next
 * request overflows and the compactor honestly replaces them all with one summary, the retry replies, `between`
 * more turns reply, the next request overflows again, and the compactor now proposes a range from a turn inside the
 * first summary to the last closed turn (`overlaps`). The loop must refuse it: the earlier summary stands and the
 * turn ends conversation_full (`compaction-keeps-turns-whole` checks every range it recorded). Drawn at random, a
 * first compaction over two turns or more and a second that overlaps it never came together: a loop that let the
 * overlap through passed every seed (outside probe 18, S5).
 */
export const aimedOverlapArb = fc.record({
  before: fc.integer({ min: 2, max: 3 }),
  between: fc.integer({ min: 0, max: 1 }),
  overflow: fc.constantFrom<'request' | 'generation'>('request', 'generation'),
  summary: summaryArb,
});

export type AimedOverlap = typeof aimedOverlapArb extends fc.Arbitrary<infer T> ? T : never;

/** The compactor of an overlap case: an honest summary first, then the range across it. */
export function overlapCompaction(o: AimedOverlap): CompactionStep[] {
  return [{ summary: o.summary }, { summary: 'Earlier: a task.', range: 'overlaps' }];
}

/** The script of an overlap case: the replies, the first overflow and its retry's reply, the turns between, the second overflow; then the rest. */
export function overlapScript(o: AimedOverlap, rest: readonly ProviderStep[]): ProviderStep[] {
  return [
    ...Array.from({ length: o.before }, (): ProviderStep => ({ reply: 'Here is what I found.' })),
    { overflow: o.overflow },
    { reply: 'That one is on its way.' },
    ...Array.from({ length: o.between }, (): ProviderStep => ({ reply: 'Noted.' })),
    { overflow: o.overflow },
    ...rest,
  ];
}

/** The inbox of an overlap case: a message per turn up to the one whose request overflows the second time; then the rest's untimed posts. */
export function withOverlapTurns(inbox: readonly InboxEntry[], turns: number): InboxEntry[] {
  return [
    ...Array.from({ length: turns }, (_, i): InboxEntry => ({ say: `And job 10${String(i + 1).padStart(2, '0')}?` })),
    ...inbox.filter((e) => isPost(e) && e.at === undefined && e.messageId === undefined),
  ];
}
