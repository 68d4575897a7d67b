/** Invariant 10: an overflow leads to a retry only if the projection shrank; otherwise conversation_full. */
import { overflowRetriesOnlyIfShrank } from '../checks/overflow-retry.ts';
import { defineProperty } from '../property.ts';

export const overflowRetryProperty = defineProperty({
  name: 'invariant-10-overflow-retry-only-if-shrank',
  title: 'an overflow is retried only if compaction shrank the projection',
  invariant: 10,
  check: (run) => overflowRetriesOnlyIfShrank(run),
});
