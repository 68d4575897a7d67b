/** The loop's incremental projection equals a replay of the whole log. */
import { projectionEqualsReplay } from '../checks/projection-replay.ts';
import { defineProperty } from '../property.ts';

export const projectionEqualsReplayProperty = defineProperty({
  name: 'projection-equals-replay',
  title: 'the projection equals a replay of the whole log',
  check: (run) => projectionEqualsReplay(run),
});
