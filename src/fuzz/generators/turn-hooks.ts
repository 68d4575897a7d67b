/**
 * What runs around a turn: the claim policy (allow, deny, filter everything out,
 * each after a delay a cancel can land in) and checkpoint hooks that may extend
 * the turn before it closes.
 */
import fc from 'fast-check';
import type { Scenario } from '../../harness/scenario/schema.ts';

type Claim = NonNullable<Scenario['claim']>;
type Checkpoint = NonNullable<Scenario['checkpoints']>[number];

const delayArb = fc.oneof({ withCrossShrink: true }, fc.constant(0), fc.integer({ min: 1, max: 10_000 }));

export const claimArb: fc.Arbitrary<Claim> = fc.oneof(
  { withCrossShrink: true },
  delayArb.map((delayMs): Claim => ({ allow: true, delayMs })),
  delayArb.map((delayMs): Claim => ({ deny: 'account suspended', delayMs })),
  delayArb.map((delayMs): Claim => ({ drop: true, delayMs })),
);

export const checkpointsArb: fc.Arbitrary<Checkpoint[]> = fc
  .array(
    fc.record({
      name: fc.constantFrom('open-todos', 'notes'),
      extend: fc.array(fc.oneof({ withCrossShrink: true }, fc.constant(null), fc.constant('Reminder: add a note first.')), { minLength: 1, maxLength: 3 }),
      delayMs: delayArb,
    }),
    { minLength: 1, maxLength: 2 },
  )
  .map((hooks) => hooks.filter((h, i) => hooks.findIndex((o) => o.name === h.name) === i));
