/**
 * A reproducible sample of mutation sites: the same seed and the same code give
 * the same sites on every machine. Each area is sampled on its own (`perArea`
 * sites each), so a small run still scores the recovery code, which is a
 * fraction of the kernel's size; the whole-population score is then estimated
 * by weighting each area by its number of mutants (report.ts).
 */
import { seededRandom } from '../../src/harness/world/seeded-random.ts';
import { AREA_NAMES, type AreaName } from './areas.ts';
import type { Site } from './sites.ts';

export interface Population {
  readonly sites: number;
  readonly mutants: number;
}

export function population(sites: readonly Site[]): Record<AreaName, Population> {
  const out = Object.fromEntries(AREA_NAMES.map((a) => [a, { sites: 0, mutants: 0 }])) as Record<AreaName, { sites: number; mutants: number }>;
  for (const s of sites) {
    out[s.area].sites++;
    out[s.area].mutants += s.mutators.length;
  }
  return out;
}

/**
 * `perArea` sites of each area, drawn without replacement by a seeded shuffle
 * (all of an area's sites when it has fewer); `'all'` keeps every site. The
 * result is in file and source order, like the input.
 */
export function sampleSites(sites: readonly Site[], perArea: number | 'all', seed: number): Site[] {
  if (perArea === 'all') return [...sites];
  const chosen = new Set<Site>();
  for (const area of AREA_NAMES) {
    const pool = sites.filter((s) => s.area === area);
    // One stream per area, so one area's size never moves another area's sample.
    const random = seededRandom((seed ^ Math.imul(AREA_NAMES.indexOf(area) + 1, 0x9e3779b1)) >>> 0);
    for (let i = 0; i < Math.min(perArea, pool.length); i++) {
      const j = i + Math.floor(random() * (pool.length - i));
      [pool[i], pool[j]] = [pool[j]!, pool[i]!];
      chosen.add(pool[i]!);
    }
  }
  return sites.filter((s) => chosen.has(s));
}
