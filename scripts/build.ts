/**
 * `npm run build` (also run by `prepack`): the published package's JavaScript and
 * declarations in dist/, from the sources the package entries reach
 * (tsconfig.build.json). dist/ mirrors the repository's layout (dist/src,
 * dist/providers, dist/scenarios, …), and the data files the code reads beside
 * itself — the bundled scenarios — are copied into it, so a path the code
 * computes from its own location (import.meta) finds the same file from the
 * sources and from the build. Sources import each other with `.ts` extensions;
 * `rewriteRelativeImportExtensions` makes them `.js` in the JavaScript, and this
 * script does the same in the declarations (tsc leaves `.ts` there), so editors
 * and tools that follow the declarations' imports find the files that exist.
 * Fails when a relative `.ts` specifier is left anywhere in dist/. Everything it
 * prints goes to stderr.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist');

rmSync(DIST, { recursive: true, force: true });
const started = performance.now();
execFileSync(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', join(ROOT, 'tsconfig.build.json')], { stdio: ['ignore', process.stderr, process.stderr] });

/** Folders whose files (all but TypeScript, which tsc compiled) the code reads at run time. */
const DATA = ['scenarios/bundled', 'providers/fixtures/wire'];
for (const folder of DATA) {
  cpSync(join(ROOT, folder), join(DIST, folder), { recursive: true, filter: (from) => !from.endsWith('.ts') });
}

/** `from './x.ts'`, `import './x.ts'`, `import('./x.ts')`: relative specifiers only. */
const RELATIVE_TS = /((?:from|import)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]*?)\.ts\2/g;
const HAS_RELATIVE_TS = new RegExp(RELATIVE_TS.source);

let files = 0;
let rewritten = 0;
const leftovers: string[] = [];
for (const entry of readdirSync(DIST, { withFileTypes: true, recursive: true })) {
  if (!entry.isFile()) continue;
  const path = join(entry.parentPath, entry.name);
  files++;
  const text = readFileSync(path, 'utf8');
  if (path.endsWith('.d.ts')) {
    const fixed = text.replace(RELATIVE_TS, (_all, lead: string, quote: string, spec: string) => `${lead}${quote}${spec}.js${quote}`);
    if (fixed !== text) {
      writeFileSync(path, fixed);
      rewritten++;
    }
    if (HAS_RELATIVE_TS.test(fixed)) leftovers.push(relative(ROOT, path));
  } else if (path.endsWith('.js') && HAS_RELATIVE_TS.test(text)) {
    leftovers.push(relative(ROOT, path));
  }
}
if (leftovers.length > 0) {
  process.stderr.write(`build: relative .ts imports left in:\n${leftovers.map((f) => `  ${f}`).join('\n')}\n`);
  process.exit(1);
}
// The sources this build was made from, with their modification times: bin/loopgate.js
// runs the build in a checkout only while every one of them is unchanged.
const sources: Record<string, number> = {};
for (const entry of readdirSync(DIST, { withFileTypes: true, recursive: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
  const built = relative(DIST, join(entry.parentPath, entry.name));
  const source = built.replace(/\.js$/, '.ts');
  try {
    sources[source] = statSync(join(ROOT, source)).mtimeMs;
  } catch {
    // A .js with no .ts beside it in the sources: nothing to compare.
  }
}
// The data folders copied as they are: every file and folder (a file added or removed changes its folder).
for (const folder of DATA) {
  sources[folder] = statSync(join(ROOT, folder)).mtimeMs;
  for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })) {
    const path = relative(ROOT, join(entry.parentPath, entry.name));
    sources[path] ??= statSync(join(ROOT, path)).mtimeMs;
  }
}
writeFileSync(join(DIST, 'build-stamp.json'), `${JSON.stringify({ sources }, null, 1)}\n`);

// Progress on stderr: stdout stays clean for `npm pack --json`, which runs this script.
process.stderr.write(
  `build: ${files} files in ${relative(ROOT, DIST)}/ (${rewritten} declaration files' imports rewritten to .js) in ${Math.round(performance.now() - started)} ms\n`,
);
