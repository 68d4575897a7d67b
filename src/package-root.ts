/**
 * Where loopgate's own package lives: the nearest folder above this file that
 * holds a package.json. The same answer whether this file runs as a source in
 * the repository (src/package-root.ts) or built inside a consumer's node_modules
 * (dist/src/package-root.js), where a fixed `../..` would land in dist/. (Data
 * files the code reads beside itself, such as the bundled scenarios, are copied
 * into dist/ by the build and found relative to the code instead.)
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`loopgate: no package.json found in ${from} or any folder above it; the package is incomplete`);
  }
}

/** The package's own directory (where its package.json is). */
export const PACKAGE_ROOT: string = findPackageRoot(import.meta.dirname);
