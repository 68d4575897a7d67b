/**
 * Each turn ends as the loop's transition table says for what the provider last
 * answered (or a cancel, or a store failure), and the model-error chain decides
 * as the table's RECOVERING column says.
 */
import { errorChainFollowsTable } from '../checks/error-chain.ts';
import { outcomeFollowsTable } from '../checks/outcome-table.ts';
import { defineProperty, firstViolation } from '../property.ts';

export const outcomeFollowsTableProperty = defineProperty({
  name: 'outcome-follows-table',
  title: 'each turn ends as the transition table says for what the provider answered',
  check: (run) =>
    firstViolation(
      () => errorChainFollowsTable(run),
      () => outcomeFollowsTable(run),
    ),
});
