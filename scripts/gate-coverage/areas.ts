/**
 * What `npm run gate-coverage` measures: the areas mutation testing scores —
 * the kernel, the adapters, recovery, the production host (its answers, writer,
 * flush, followers, traces) and the stores. PostgreSQL's store is listed too: a
 * `loopgate run` without LOOPGATE_POSTGRES_URL runs no server, so its lines are
 * run only where the variable is set (the tests run them under CI).
 */
import { AREA_NAMES, AREAS, type Area, type AreaName } from '../mutate/areas.ts';

export const MEASURED_AREA_NAMES = AREA_NAMES;
export type MeasuredAreaName = AreaName;

export const MEASURED_AREAS: readonly Area<MeasuredAreaName>[] = AREAS;
