/**
 * Mutation sites: the places Stryker's instrumenter would mutate, each with the
 * mutants it makes there (several mutators can hit one node). A sample is drawn
 * from sites, and Stryker is then told to mutate exactly those (sample-ignorer.ts).
 * Positions are Babel's: lines from 1, columns from 0 — what a Stryker mutate
 * range (`file:line:column-line:column`) takes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '@stryker-mutator/api/logging';
import { Instrumenter } from '@stryker-mutator/instrumenter';
import type { AreaName } from './areas.ts';

export interface Position {
  readonly line: number;
  readonly column: number;
}

export interface Site {
  readonly area: AreaName;
  /** Relative to the repository, forward slashes. */
  readonly file: string;
  readonly start: Position;
  readonly end: Position;
  /** The mutants Stryker makes here: mutator names, one per mutant. */
  readonly mutators: readonly string[];
}

export const siteKey = (s: Pick<Site, 'start' | 'end'>) => `${s.start.line}:${s.start.column}-${s.end.line}:${s.end.column}`;

/** The Stryker mutate pattern selecting exactly this site's node (and what lies inside it; sample-ignorer.ts drops that). */
export const sitePattern = (s: Site) => `${s.file}:${siteKey(s)}`;

const quiet: Logger = {
  isTraceEnabled: () => false,
  isDebugEnabled: () => false,
  isInfoEnabled: () => false,
  isWarnEnabled: () => true,
  isErrorEnabled: () => true,
  isFatalEnabled: () => true,
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: (message: string, ...args: unknown[]) => process.stderr.write(`${[message, ...args].join(' ')}\n`),
  error: (message: string, ...args: unknown[]) => process.stderr.write(`${[message, ...args].join(' ')}\n`),
  fatal: (message: string, ...args: unknown[]) => process.stderr.write(`${[message, ...args].join(' ')}\n`),
};

/** Every site in `files`, in file order then source order — Stryker's own mutators, none excluded. */
export async function enumerateSites(root: string, files: readonly { readonly area: AreaName; readonly file: string }[]): Promise<Site[]> {
  const areaByPath = new Map(files.map((f) => [join(root, f.file), f]));
  const { mutants } = await new Instrumenter(quiet).instrument(
    files.map((f) => ({ name: join(root, f.file), content: readFileSync(join(root, f.file), 'utf8'), mutate: true })),
    { plugins: null, excludedMutations: [], ignorers: [] },
  );
  const sites = new Map<string, { area: AreaName; file: string; start: Position; end: Position; mutators: string[] }>();
  for (const m of mutants) {
    const owner = areaByPath.get(m.fileName);
    if (!owner) continue;
    // The instrumenter reports lines from 0; Babel (and mutate ranges) count from 1.
    const start = { line: m.location.start.line + 1, column: m.location.start.column };
    const end = { line: m.location.end.line + 1, column: m.location.end.column };
    const key = `${owner.file}:${siteKey({ start, end })}`;
    const site = sites.get(key) ?? { area: owner.area, file: owner.file, start, end, mutators: [] };
    site.mutators.push(m.mutatorName);
    sites.set(key, site);
  }
  return [...sites.values()];
}
