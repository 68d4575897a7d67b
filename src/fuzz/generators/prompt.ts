/**
 * Prompt fragments (`prompt:`): several at once, at distinct or equal priorities
 * (registration order then breaks the tie), static or dynamic — a dynamic one's
 * text changing between assemblies, blank at times (empty or only spaces), or
 * throwing — and now and then an exclusive fragment that takes the prompt over.
 * `prompt-follows-fragments` assembles each request's system prompt on its own
 * and compares it with the one the model received, so a wrong order or an
 * ignored take-over fails.
 */
import fc from 'fast-check';
import type { Scenario } from '../../harness/scenario/schema.ts';

type Fragment = NonNullable<Scenario['prompt']>[number];

const TEXTS = ['Be brief.', 'Tasks on file: task 1001.', 'Changes need a reason.', 'Answer in English.'] as const;

const dynamicStepArb = fc.oneof(
  { withCrossShrink: true },
  { weight: 4, arbitrary: fc.constantFrom<string | { throw: string }>(...TEXTS) },
  // Blank at times: empty, or only spaces (outside probe 11, P06: a blank test of text === '' took "   " for text).
  { weight: 1, arbitrary: fc.constantFrom<string | { throw: string }>('', '   ') },
  { weight: 2, arbitrary: fc.constant<string | { throw: string }>({ throw: 'context service timed out' }) },
);

function fragmentArb(id: string): fc.Arbitrary<Fragment> {
  return fc
    .record({
      priority: fc.constantFrom(-100, -50, 0, 0, 50, 100, 150),
      text: fc.oneof(
        { withCrossShrink: true },
        fc.constantFrom(...TEXTS).map((text) => ({ text })),
        fc.array(dynamicStepArb, { minLength: 1, maxLength: 3 }).map((dynamic) => ({ dynamic })),
      ),
      exclusive: fc.oneof({ withCrossShrink: true }, { weight: 6, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    })
    .map(({ priority, text, exclusive }) => ({ id, priority, ...text, ...(exclusive ? { exclusive } : {}) }));
}

/** Two to four fragments, ids fixed so a counterexample reads plainly. */
export const promptArb: fc.Arbitrary<Fragment[]> = fc
  .tuple(
    fragmentArb('fragment-a'),
    fragmentArb('fragment-b'),
    fc.option(fragmentArb('fragment-c'), { nil: undefined }),
    fc.option(fragmentArb('fragment-d'), { nil: undefined }),
  )
  .map((fragments) => fragments.filter((f): f is Fragment => f !== undefined));
