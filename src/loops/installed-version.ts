/** The installed version of a package the adapters drive (for every report), or `not installed`. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

export function installedVersion(name: string): string {
  try {
    // The entry, then up to its package.json: not every package exports ./package.json.
    for (let dir = dirname(require.resolve(name)); dir !== dirname(dir); dir = dirname(dir)) {
      try {
        const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
        if (manifest.name === name && manifest.version) return manifest.version;
      } catch {
        // not here: one folder up
      }
    }
  } catch {
    // not resolvable
  }
  return 'not installed';
}
