#!/usr/bin/env node
// loopgate runs its TypeScript sources directly: Node strips the types.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(`loopgate needs Node.js 22.18 or newer (this is ${process.version}); run it through npx or npm scripts to use the pinned Node 24.\n`);
  process.exit(2);
}
await import('../src/cli/main.ts');
