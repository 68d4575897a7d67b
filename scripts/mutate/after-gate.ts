/**
 * The suite judge after a gate run (`--after-gate`): the whole suite contains the
 * gate (bench/mutation/vitest.suite.config.ts runs gate.judge.ts with the rest of
 * `npm test`), so a mutant the gate killed is killed by the suite by the same
 * test. Only the sites where the gate left a mutant alive (survived, unreached,
 * timed out, or broke the run) are run again under the whole suite; the gate's
 * kills elsewhere are carried over, named as such. A run of the whole suite per
 * mutant costs minutes here, so this turns an unaffordable run into one that
 * judges exactly what the gate could not.
 *
 * The gate run must be of this code: every mutant it recorded must still be a
 * site of its sample, mutated by the same mutator, or the run is refused.
 */
import { readFileSync } from 'node:fs';
import { AREA_NAMES, type AreaName } from './areas.ts';
import { MutateUsageError } from './args.ts';
import type { MutantLine } from './report.ts';
import type { Site } from './sites.ts';

/** What `--after-gate` reads from a gate judge's mutation-gate.json. */
export interface GateRun {
  readonly path: string;
  readonly sample: number | 'all';
  readonly seed: number;
  readonly files: readonly string[];
  /** The areas it mutated: its --area list, else those its population counts (a run before the host and stores were areas: three). */
  readonly areas: readonly AreaName[];
  readonly mutants: readonly MutantLine[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function readGateRun(path: string): GateRun {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : ((error as Error).message.split('\n')[0] ?? 'unreadable');
    throw new MutateUsageError(`--after-gate ${path}: ${reason}`);
  }
  const bad = (what: string) => new MutateUsageError(`--after-gate ${path}: ${what} (expected the mutation-gate.json a gate run wrote)`);
  if (!isObject(json)) throw bad('not a JSON object');
  if (json.judge !== 'gate') throw bad(`its judge is ${JSON.stringify(json.judge)}, not "gate"`);
  const { sample, seed, files, mutants } = json;
  if (!(sample === 'all' || (Number.isInteger(sample) && (sample as number) > 0))) throw bad('no sample');
  if (!Number.isInteger(seed)) throw bad('no seed');
  if (!Array.isArray(files) || !files.every((f) => typeof f === 'string')) throw bad('no files list');
  if (!Array.isArray(mutants)) throw bad('no mutants list');
  mutants.forEach((m, i) => {
    const ok =
      isObject(m) &&
      typeof m.file === 'string' &&
      Number.isInteger(m.line) &&
      Number.isInteger(m.column) &&
      typeof m.mutator === 'string' &&
      typeof m.status === 'string';
    if (!ok) throw bad(`mutants[${i}] has no file, line, column, mutator and status`);
  });
  const only = Array.isArray(json.onlyAreas) ? json.onlyAreas.filter((a): a is AreaName => (AREA_NAMES as readonly unknown[]).includes(a)) : [];
  const counted = isObject(json.population) ? AREA_NAMES.filter((a) => a in (json.population as object)) : [];
  const areas = only.length > 0 ? only : counted.length > 0 ? counted : [...AREA_NAMES];
  return { path, sample: sample as GateRun['sample'], seed: seed as number, files: files as string[], areas, mutants: mutants as MutantLine[] };
}

export interface Rejudge {
  /** The sites to run under the whole suite: each holds a mutant the gate did not kill. */
  readonly sites: readonly Site[];
  /** The gate's kills at the other sites, carried over as the suite's. */
  readonly carried: readonly MutantLine[];
}

export const CARRIED_PREFIX = 'gate judge: ';

/** Stryker's report counts columns from 1; sites (Babel positions) from 0. */
const siteOf = (sites: readonly Site[], m: MutantLine) =>
  sites.find((s) => s.file === m.file && s.start.line === m.line && s.start.column + 1 === m.column && s.mutators.includes(m.mutator));

/**
 * `sample`: the gate run's sample of sites; `all`: every site of this code. A
 * gate run also mutates the nodes that enclose a sampled site within one line
 * (sample-ignorer.ts keeps them), so a recorded mutant may be a site outside the
 * sample: it is judged again at its own site when the gate left it alive.
 */
export function sitesToRejudge(sample: readonly Site[], all: readonly Site[], gate: GateRun): Rejudge {
  const bySite = new Map<Site, MutantLine[]>();
  for (const m of gate.mutants) {
    const site = siteOf(sample, m) ?? siteOf(all, m);
    if (!site) {
      throw new MutateUsageError(
        `--after-gate ${gate.path}: ${m.file}:${m.line}:${m.column} (${m.mutator}) is not a mutation site of this code: the code changed since that gate run; run the gate judge again`,
      );
    }
    bySite.set(site, [...(bySite.get(site) ?? []), m]);
  }
  const sites: Site[] = [];
  const carried: MutantLine[] = [];
  for (const site of new Set([...sample, ...bySite.keys()])) {
    const mine = bySite.get(site) ?? [];
    // A sampled site the gate run never mutated: judged now rather than guessed.
    if (mine.length === 0 || mine.some((m) => m.status !== 'Killed')) sites.push(site);
    else for (const m of mine) carried.push({ ...m, killedBy: `${CARRIED_PREFIX}${m.killedBy ?? 'a gate case'}` });
  }
  return { sites: all.filter((s) => sites.includes(s)), carried };
}
