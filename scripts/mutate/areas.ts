/**
 * What mutation testing mutates, in three areas scored separately: the kernel,
 * the provider adapters (the SDK adapters and what they share — not the fakes,
 * the contract suite or the recording tools) and the host's crash recovery.
 */
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export const AREA_NAMES = ['kernel', 'adapters', 'recovery'] as const;
export type AreaName = (typeof AREA_NAMES)[number];

export interface Area<Name extends string = AreaName> {
  readonly name: Name;
  /** Folders whose .ts files (tests excluded) are mutated, recursively. */
  readonly dirs: readonly string[];
  readonly files: readonly string[];
}

export const AREAS: readonly Area[] = [
  { name: 'kernel', dirs: ['src/kernel'], files: [] },
  {
    name: 'adapters',
    dirs: ['providers/anthropic', 'providers/openai-chat', 'providers/openai-responses', 'providers/openai-shared', 'providers/shared'],
    files: ['providers/clients.ts'],
  },
  { name: 'recovery', dirs: [], files: ['src/host/recovery.ts'] },
];

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
        if (entry.isFile() && isSource(entry.name)) add(area.name, posix(relative(root, join(entry.parentPath, entry.name))));
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
    if (area.dirs.some((dir) => path.startsWith(`${dir}/`)) && isSource(path)) return area.name;
  }
  return undefined;
}
