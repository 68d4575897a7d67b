/** Invariant 11: the step budget is checked before tools run (and the tool-call and token budgets before the work they pay for). */
import { budgetsCheckedBeforeWork } from '../checks/budgets-before-work.ts';
import { defineProperty } from '../property.ts';

export const stepBudgetProperty = defineProperty({
  name: 'invariant-11-step-budget-before-tools',
  title: 'no tool runs in a step whose result the model could not see; budgets hold',
  invariant: 11,
  check: (run) => budgetsCheckedBeforeWork(run),
});
