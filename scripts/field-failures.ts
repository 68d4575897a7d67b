/**
 * `npm run field-failures`: runs every scenario docs/field-failures.md reports
 * through each loop — `loopgate run --loop NAME FILES…`, one process per loop
 * (a peer's cases swap the global timers: nothing else shares the process) —
 * and writes docs/field-failures.md and docs/field-failures.html from the
 * results. `--loop NAME` limits it to one loop (the others are read from their
 * last results under reports/field-failures/ when there).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { installedVersion } from '../src/loops/installed-version.ts';
import type { CaseResult, RunResults } from '../src/report/results.ts';
import { renderHtml, renderMarkdown, type Results } from './field-failures/render.ts';
import { FINDINGS, LOOPS, ROWS, type LoopName } from './field-failures/rows.ts';

const ROOT = join(import.meta.dirname, '..');
const only = process.argv.includes('--loop') ? (process.argv[process.argv.indexOf('--loop') + 1] as LoopName) : undefined;
if (only !== undefined && !LOOPS.includes(only)) {
  process.stderr.write(`field-failures: --loop ${only}: expected one of ${LOOPS.join(', ')}\n`);
  process.exit(2);
}
const files = [...new Set([...ROWS.flatMap((r) => r.files), ...FINDINGS.map((f) => f.file)])];

const results = {} as Record<LoopName, Map<string, CaseResult>>;
for (const loop of LOOPS) {
  const out = join(ROOT, 'reports', 'field-failures', loop);
  if (only === undefined || only === loop) {
    mkdirSync(out, { recursive: true });
    process.stderr.write(`field-failures: running ${files.length} scenario files through ${loop}…\n`);
    try {
      // loopgate through the loop directly (a file that crashes pins the production host itself); a peer has no host to choose.
      const host = loop === 'loopgate' ? ['--host', 'loop'] : [];
      execFileSync(process.execPath, [join(ROOT, 'bin', 'loopgate.js'), 'run', '--loop', loop, ...host, '--reporter', 'json', '--out', out, ...files], {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    } catch (error) {
      // Exit 1 is the finding itself (a peer violates invariants); anything else is a broken run.
      if ((error as { status?: number }).status !== 1) throw error;
    }
  }
  const file = join(out, 'results.json');
  if (!existsSync(file)) throw new Error(`field-failures: no results for ${loop} (${file}); run without --loop first`);
  const run = JSON.parse(readFileSync(file, 'utf8')) as RunResults;
  results[loop] = new Map(run.cases.map((c) => [c.id, c]));
}

const loopgateVersion = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const versions = [
  `loopgate ${loopgateVersion}`,
  `ai ${installedVersion('ai')}`,
  `@ai-sdk/anthropic ${installedVersion('@ai-sdk/anthropic')}`,
  `@ai-sdk/openai ${installedVersion('@ai-sdk/openai')}`,
  `@openai/agents ${installedVersion('@openai/agents')}`,
  `Node ${process.versions.node}`,
].join(' · ');
writeFileSync(join(ROOT, 'docs', 'field-failures.md'), renderMarkdown(results as Results, versions));
writeFileSync(join(ROOT, 'docs', 'field-failures.html'), renderHtml(results as Results, versions));
process.stderr.write('field-failures: wrote docs/field-failures.md and docs/field-failures.html\n');
