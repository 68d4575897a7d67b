#!/usr/bin/env node
// The `loopgate` command. In the published package it runs the built JavaScript
// (dist/); in a checkout of the repository, where the TypeScript sources are
// present, it runs them directly (Node strips the types) so no build is needed.
import { existsSync } from 'node:fs';

const SOURCE = new URL('../src/cli/main.ts', import.meta.url);
const BUILT = new URL('../dist/src/cli/main.js', import.meta.url);
const fromSource = existsSync(SOURCE);

// Type stripping without a flag (22.18): for the sources here, and for a user's loopgate.config.ts.
const [needMajor, needMinor] = [22, 18];
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < needMajor || (major === needMajor && minor < needMinor)) {
  const hint = fromSource ? '; in the repository, run it through npx or npm scripts to use the pinned Node 24' : '';
  process.stderr.write(`loopgate needs Node.js ${needMajor}.${needMinor} or newer (this is ${process.version})${hint}.\n`);
  process.exit(2);
}
if (!fromSource && !existsSync(BUILT)) {
  process.stderr.write(`loopgate: ${BUILT.pathname} is missing: the package was not built (npm run build).\n`);
  process.exit(2);
}
await import(fromSource ? SOURCE.href : BUILT.href);
