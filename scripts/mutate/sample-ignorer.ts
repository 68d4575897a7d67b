/**
 * A Stryker ignorer plugin (`loopgate-sample`) that keeps exactly the sampled
 * sites. The mutate ranges (one per site) already leave out everything outside
 * the sites; inside a site's node Stryker would also mutate every node nested in
 * it (a sampled block statement would bring all its statements along), so this
 * ignores every node that neither is a sampled site nor contains one. Ignored
 * mutants are reported as such and never run.
 *
 * The sites come from the JSON file named by LOOPGATE_MUTATE_SITES
 * ({ root, sites: { [file]: [{ start, end }] } }), written by scripts/mutate.ts.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';
import type { NodePath } from '@stryker-mutator/api/ignore';
import { posix } from './areas.ts';
import type { Position } from './sites.ts';

export const SITES_ENV = 'LOOPGATE_MUTATE_SITES';
export const IGNORER_NAME = 'loopgate-sample';
export const NOT_SAMPLED = 'not in this run’s sample of sites (scripts/mutate)';

export interface SitesFile {
  readonly root: string;
  readonly sites: Readonly<Record<string, readonly { readonly start: Position; readonly end: Position }[]>>;
}

interface Located {
  readonly start: Position;
  readonly end: Position;
}

const before = (a: Position, b: Position) => a.line < b.line || (a.line === b.line && a.column <= b.column);

/** `outer` is `inner` or contains it. */
export const encloses = (outer: Located, inner: Located) => before(outer.start, inner.start) && before(inner.end, outer.end);

/** The ignore decision for a node at `loc` in `file` (repository-relative), given the sampled sites. */
export function ignoreReason(sites: SitesFile['sites'], file: string, loc: Located | null | undefined): string | undefined {
  const inFile = sites[file];
  if (!inFile || !loc) return undefined;
  return inFile.some((site) => encloses(loc, site)) ? undefined : NOT_SAMPLED;
}

let loaded: SitesFile | undefined;
function sitesFile(): SitesFile {
  if (loaded) return loaded;
  const path = process.env[SITES_ENV];
  if (!path) throw new Error(`${IGNORER_NAME}: ${SITES_ENV} names no sites file (run mutation tests with npm run mutate)`);
  loaded = JSON.parse(readFileSync(path, 'utf8')) as SitesFile;
  return loaded;
}

interface BabelPath {
  readonly node: { readonly loc?: Located | null };
  readonly hub?: { readonly file?: { readonly opts?: { readonly filename?: string } } };
}

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, IGNORER_NAME, {
    shouldIgnore(path: NodePath): string | undefined {
      const { node, hub } = path as BabelPath;
      const filename = hub?.file?.opts?.filename;
      if (!filename) return undefined;
      const { root, sites } = sitesFile();
      return ignoreReason(sites, posix(relative(root, filename)), node.loc);
    },
  }),
];
