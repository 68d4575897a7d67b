/**
 * What mutation testing mutates, in five areas scored separately: the kernel,
 * the provider adapters (the SDK adapters and what they share — not the fakes,
 * the contract suite or the recording tools), the host's crash recovery, the
 * rest of the production host (its answers, writer, flush, followers, lock use,
 * traces) and the stores — where outside checks plant bugs too. The stores'
 * PostgreSQL files are reached by the gate only with LOOPGATE_POSTGRES_URL set.
 */
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export const AREA_NAMES = ['kernel', 'adapters', 'recovery', 'host', 'stores'] as const;
export type AreaName = (typeof AREA_NAMES)[number];

export interface Area<Name extends string = AreaName> {
  readonly name: Name;
  /** Folders whose .ts files (tests excluded) are mutated, recursively. */
  readonly dirs: readonly string[];
  readonly files: readonly string[];
  /** Files or folders (ending in /) under `dirs` that are the area's test tools, not its code: never mutated. */
  readonly except?: readonly string[];
}

export const AREAS: readonly Area[] = [
  { name: 'kernel', dirs: ['src/kernel'], files: [] },
  {
    name: 'adapters',
    dirs: ['providers/anthropic', 'providers/openai-chat', 'providers/openai-responses', 'providers/openai-shared', 'providers/shared'],
    files: ['providers/clients.ts'],
  },
  { name: 'recovery', dirs: [], files: ['src/host/recovery.ts'] },
  // After recovery: recovery.ts stays in its own area (an earlier area holds it).
  { name: 'host', dirs: ['src/host'], files: [] },
  // Not the store contract suite (the stores' own tests) or the tests' PostgreSQL helper.
  {
    name: 'stores',
    dirs: ['src/stores'],
    files: [],
    except: ['src/stores/contract/', 'src/stores/store-conformance.ts', 'src/stores/postgres-store-testing.ts'],
  },
];

const excepted = (area: Area<string>, file: string) => area.except?.some((e) => (e.endsWith('/') ? file.startsWith(e) : file === e)) ?? false;

const isSource = (name: string) => name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts');

/** A path relative to the repository, with forward slashes (as Stryker's patterns and reports spell them). */
export const posix = (path: string) => path.split(sep).join('/');

/**
 * Every file mutated, relative to `root`, sorted (so a seed picks the same sample on every machine). Given other
 * areas, their files: a file an earlier area already holds stays in that area.
 */
export function areaFiles<Name extends string = AreaName>(
  root: string,
  areas: readonly Area<Name>[] = AREAS as unknown as readonly Area<Name>[],
): { readonly area: Name; readonly file: string }[] {
  const out: { area: Name; file: string }[] = [];
  const held = new Set<string>();
  const add = (area: Name, file: string) => {
    if (held.has(file)) return;
    held.add(file);
    out.push({ area, file });
  };
  for (const area of areas) for (const file of area.files) add(area.name, file);
  for (const area of areas) {
    for (const dir of area.dirs) {
      for (const entry of readdirSync(join(root, dir), { recursive: true, withFileTypes: true })) {
        const file = posix(relative(root, join(entry.parentPath, entry.name)));
        if (entry.isFile() && isSource(entry.name) && !excepted(area, file)) add(area.name, file);
      }
    }
  }
  return out.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/** The area a (repository-relative) file belongs to, if it is mutated at all. */
export function areaOf(file: string): AreaName | undefined {
  const path = posix(file);
  for (const area of AREAS) {
    if (area.files.includes(path)) return area.name;
    if (area.dirs.some((dir) => path.startsWith(`${dir}/`)) && isSource(path)) return excepted(area, path) ? undefined : area.name;
  }
  return undefined;
}
