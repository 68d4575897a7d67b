/** Each turn ends as the loop's transition table says for what the provider last answered (or a cancel, or a store failure). */
import { outcomeFollowsTable } from '../checks/outcome-table.ts';
import { defineProperty } from '../property.ts';

export const outcomeFollowsTableProperty = defineProperty({
  name: 'outcome-follows-table',
  title: 'each turn ends as the transition table says for what the provider answered',
  check: (run) => outcomeFollowsTable(run),
});
