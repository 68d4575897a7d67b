/**
 * What `npm run gate-coverage` measures: the three areas mutation testing
 * scores, and two it does not but outside checks plant bugs in all the same —
 * the production host (its answers, writer, flush, followers, traces) and the
 * stores. PostgreSQL's store is listed too: the gate runs no server, so its
 * lines are never run by a user's `loopgate run` (the tests run them under CI).
 */
import { AREAS, type Area, type AreaName } from '../mutate/areas.ts';

export const MEASURED_AREA_NAMES = ['kernel', 'adapters', 'recovery', 'host', 'stores'] as const;
export type MeasuredAreaName = (typeof MEASURED_AREA_NAMES)[number];

export const MEASURED_AREAS: readonly Area<MeasuredAreaName>[] = [
  ...(AREAS as readonly Area<AreaName>[]),
  // recovery.ts stays in its own area (an earlier area holds it).
  { name: 'host', dirs: ['src/host'], files: [] },
  { name: 'stores', dirs: ['src/stores'], files: [] },
];
