/**
 * `loopgate run --out DIR` (and `loopgate fuzz --out DIR`) stopped by Ctrl-C (SIGINT) or a CI runner's SIGTERM
 * leaves no report in DIR for anything to take as the run's: the reports a
 * previous run left there are gone (a CI step that collects junit.xml finds
 * none, never the last green one), nothing new is written, and the process ends
 * with 130 (SIGINT) or 143 (SIGTERM) and one line saying so (probe 31: the old
 * junit, json and html stayed, looking current).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const REPORTS = ['results.json', 'junit.xml', 'summary.md', 'report.html'];
/** How a previous run's reports begin: loopgate removes only files it wrote (probe 18). */
const PREVIOUS: Record<string, string> = {
  'results.json': '{"schema": "loopgate.results/v2", "from": "the previous run"}\n',
  'junit.xml': '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="loopgate" tests="1"></testsuites>\n',
  'summary.md': '## ✅ loopgate: 1 passed\n',
  'report.html': '<!doctype html>\n<html lang="en">\n<meta name="generator" content="loopgate 0.1.0">\n',
};

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'loopgate-interrupted-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A project whose one tool, once a case calls it, writes `started` and then
 * waits a minute of real time: a run that is interrupted there is mid-case.
 */
function project(name: string): string {
  const where = join(dir, name);
  mkdirSync(join(where, 'scenarios'), { recursive: true });
  const marker = join(where, 'started');
  writeFileSync(
    join(where, 'loopgate.config.ts'),
    [
      `import { writeFileSync } from 'node:fs';`,
      `import { defineConfig, defineTool } from ${JSON.stringify(join(ROOT, 'src/index.ts'))};`,
      `import { z } from ${JSON.stringify(join(ROOT, 'node_modules/zod/index.js'))};`,
      `const t = defineTool({ name: 't', description: 'd', input: z.object({}), sideEffect: 'NONE', run: async () => {`,
      `  writeFileSync(${JSON.stringify(marker)}, 'yes');`,
      `  await new Promise((done) => setTimeout(done, 60_000));`,
      `  return 'late';`,
      `} });`,
      'export default defineConfig({ agents: { a: () => ({ tools: [t] }) }, host: "loop" });',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(where, 'scenarios', 'call.yaml'),
    [
      'name: call t',
      'provider:',
      '  script:',
      '    - tool_use: [{ id: c1, name: t, args: {} }]',
      '    - reply: done',
      'inbox:',
      '  - say: go',
      'expect:',
      '  outcome: replied',
      '',
    ].join('\n'),
  );
  // What a previous, finished run left in the report directory.
  mkdirSync(join(where, 'out'));
  for (const file of REPORTS) writeFileSync(join(where, 'out', file), PREVIOUS[file]!);
  return where;
}

interface Interrupted {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
  readonly reachedTheCase: boolean;
}

/** Runs `loopgate run --out out` in `where`, sends `signal` once the case is inside its tool, and waits for the end. */
function interrupt(where: string, signal: NodeJS.Signals): Promise<Interrupted> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/loopgate.js'), 'run', '--out', 'out'], {
      cwd: where,
      env: { ...process.env, CI: 'true' },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.resume();
    let reachedTheCase = false;
    const poll = setInterval(() => {
      if (!existsSync(join(where, 'started'))) return;
      reachedTheCase = true;
      clearInterval(poll);
      child.kill(signal);
    }, 50);
    // Far above a start on a loaded machine; reaching it means the case never began (or the process ignored the signal).
    const hang = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.on('close', (status, killedBy) => {
      clearInterval(poll);
      clearTimeout(hang);
      done({ status, signal: killedBy, stderr, reachedTheCase });
    });
  });
}

describe('loopgate run, interrupted', () => {
  for (const [signal, code] of [
    ['SIGINT', EXIT.interrupted],
    ['SIGTERM', EXIT.terminated],
  ] as const) {
    it(`${signal} mid-run: exit ${code}, one line saying so, and no report in --out (the previous run's removed)`, async () => {
      const where = project(signal.toLowerCase());
      const result = await interrupt(where, signal);
      expect(result.reachedTheCase, result.stderr).toBe(true);
      expect({ status: result.status, signal: result.signal }, result.stderr).toEqual({ status: code, signal: null });
      expect(result.stderr).toContain(
        `loopgate: interrupted (${signal}): no report was written to out; the reports an earlier run left there were removed (results.json, junit.xml, summary.md, report.html)\n`,
      );
      expect(readdirSync(join(where, 'out'))).toEqual([]);
    }, 60_000);
  }
});

/** Runs `loopgate fuzz` (the bundled agent, far more cases than it can finish) in `where`, and sends `signal` once it reports progress. */
function interruptFuzz(where: string, signal: NodeJS.Signals): Promise<Interrupted> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/loopgate.js'), 'fuzz', '--runs', '10000000', '--seed', '1', '--out', 'out'], {
      cwd: where,
      env: { ...process.env, CI: 'true' },
    });
    let stderr = '';
    let reachedTheCase = false;
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      // The first progress line (every 5 s off a terminal): cases are running.
      if (!reachedTheCase && /runs/.test(stderr)) {
        reachedTheCase = true;
        child.kill(signal);
      }
    });
    child.stdout.resume();
    const hang = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.on('close', (status, killedBy) => {
      clearTimeout(hang);
      done({ status, signal: killedBy, stderr, reachedTheCase });
    });
  });
}

describe('loopgate fuzz, interrupted', () => {
  it("SIGINT mid-search: exit 130, one line saying so, and no report in --out (the previous run's removed)", async () => {
    const where = join(dir, 'fuzz');
    mkdirSync(join(where, 'out'), { recursive: true });
    for (const file of REPORTS) writeFileSync(join(where, 'out', file), PREVIOUS[file]!);
    const result = await interruptFuzz(where, 'SIGINT');
    expect(result.reachedTheCase, result.stderr).toBe(true);
    expect({ status: result.status, signal: result.signal }, result.stderr).toEqual({ status: EXIT.interrupted, signal: null });
    expect(result.stderr).toContain(
      'loopgate: interrupted (SIGINT): no report was written to out; the reports an earlier run left there were removed (results.json, junit.xml, summary.md, report.html)\n',
    );
    expect(readdirSync(join(where, 'out'))).toEqual([]);
  }, 60_000);
});
