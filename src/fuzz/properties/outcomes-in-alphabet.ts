/** Outcomes are always in the closed alphabet — returned and logged. */
import { outcomesInAlphabet } from '../checks/outcome-alphabet.ts';
import { defineProperty } from '../property.ts';

export const outcomesInAlphabetProperty = defineProperty({
  name: 'outcomes-in-alphabet',
  title: 'outcomes are always in the closed alphabet',
  check: (run) => outcomesInAlphabet(run),
});
