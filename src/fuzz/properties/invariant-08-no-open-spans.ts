/** Invariant 8: no span is left open at trace end (it would be `undetermined`); spans are linked into one tree per turn. */
import { noOpenSpans } from '../../harness/checks/invariants.ts';
import { spansWellFormed } from '../checks/span-links.ts';
import { defineProperty, firstViolation, verdictOf } from '../property.ts';

export const noOpenSpansProperty = defineProperty({
  name: 'invariant-08-no-open-spans',
  title: 'no span left open when a trace ends',
  invariant: 8,
  check: (run) =>
    firstViolation(
      () => verdictOf(noOpenSpans(run)),
      () => spansWellFormed(run),
    ),
});
