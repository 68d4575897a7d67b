#!/usr/bin/env node
// The `loopgate` command. It runs the built JavaScript (dist/) when there is one:
// always in the published package; in a checkout of the repository, when the
// build is as new as the sources it was built from (dist/build-stamp.json lists
// them) — otherwise the TypeScript sources directly (Node strips the types), so
// no build is needed and a stale one is never run. Node's module compile cache is
// on either way (NODE_DISABLE_COMPILE_CACHE=1 turns it off): a second start reads
// compiled code instead of compiling (and stripping) every module again.
// LOOPGATE_RUN_SOURCES=1 runs the sources whatever the build (for tools that hook
// the sources as they load).
import { existsSync, readFileSync, statSync } from 'node:fs';
import module from 'node:module';

const SOURCE = new URL('../src/cli/main.ts', import.meta.url);
const BUILT = new URL('../dist/src/cli/main.js', import.meta.url);
const STAMP = new URL('../dist/build-stamp.json', import.meta.url);
const hasSource = existsSync(SOURCE);
const hasBuilt = existsSync(BUILT);

/** Is the build as new as every source it was built from? */
function buildIsCurrent() {
  try {
    const stamp = JSON.parse(readFileSync(STAMP, 'utf8'));
    for (const [path, mtimeMs] of Object.entries(stamp.sources)) {
      if (statSync(new URL(`../${path}`, import.meta.url)).mtimeMs !== mtimeMs) return false;
    }
    return true;
  } catch {
    return false; // no stamp, or a source gone: build again, or run the sources
  }
}

const fromSource = hasSource && (process.env.LOOPGATE_RUN_SOURCES === '1' || !(hasBuilt && buildIsCurrent()));

// Type stripping without a flag (22.18): for the sources here, and for a user's loopgate.config.ts.
const [needMajor, needMinor] = [22, 18];
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < needMajor || (major === needMajor && minor < needMinor)) {
  const hint = fromSource ? '; in the repository, run it through npx or npm scripts to use the pinned Node 24' : '';
  process.stderr.write(`loopgate needs Node.js ${needMajor}.${needMinor} or newer (this is ${process.version})${hint}.\n`);
  process.exit(2);
}
if (!fromSource && !hasBuilt) {
  process.stderr.write(`loopgate: ${BUILT.pathname} is missing: the package was not built (npm run build).\n`);
  process.exit(2);
}
module.enableCompileCache?.();
await import(fromSource ? SOURCE.href : BUILT.href);
