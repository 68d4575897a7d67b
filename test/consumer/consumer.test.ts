/**
 * The package as its users get it: `npm pack` (which builds dist/), the tarball
 * installed into a fresh project — a copy of fixture-project/, with its own pinned
 * `node` devDependency (the same version as this repository's) — and there:
 * `npx loopgate run` with the project's loopgate.config.ts agent on its scenarios
 * (exit 0, then 1 with a broken expectation; 2 for a scenario that would change
 * a tool's declaration; 1 for nothing checked), `npx loopgate fuzz` on that agent,
 * the bundled suite, a plain Node ESM `import('loopgate')`,
 * `loopgate/vitest` in the project's own vitest run, the project's own AI SDK
 * agent gated in the AI SDK's loop (loopgate.ai-sdk.config.ts, `loopgate/loops/ai-sdk`,
 * `ai` a devDependency of the project as of this repository), and `tsc --noEmit` under
 * `strict` on the project's code (no allowImportingTsExtensions, skipLibCheck off).
 *
 * One install (beforeAll) serves every check; it comes from npm's cache when the
 * repository's own `npm ci` filled it (--prefer-offline), from the registry
 * otherwise. The children run with the environment a user's shell would give them:
 * none of this repository's node_modules/.bin on PATH, no npm or vitest variables
 * of this run.
 *
 * To add a check, add files to fixture-project/ and a test that calls `inProject`.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, posix, relative, resolve, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..', '..');
const FIXTURE = join(import.meta.dirname, 'fixture-project');
const INSTALL_TIMEOUT_MS = 300_000;

interface Finished {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

interface PackResult {
  readonly filename: string;
  readonly size: number;
  readonly unpackedSize: number;
  readonly entryCount: number;
  readonly files: readonly { readonly path: string }[];
}

/** process.env without what this test run added: the repository's .bin on PATH, npm's and vitest's variables. */
function userEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const keep = new Set(['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig']);
  for (const [key, value] of Object.entries(process.env)) {
    const lower = key.toLowerCase();
    if (lower.startsWith('npm_') && !keep.has(lower)) continue;
    if (key.startsWith('VITEST') || key === 'NODE_ENV' || key === 'TEST' || key === 'INIT_CWD' || key === 'NODE' || key === 'NODE_OPTIONS') continue;
    env[key] = value;
  }
  env.PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir !== '' && !`${resolve(dir)}${sep}`.startsWith(`${REPO}${sep}`))
    .join(delimiter);
  env.NO_COLOR = '1';
  return env;
}

const ENV = userEnvironment();

function run(command: string, args: readonly string[], cwd: string, timeoutMs = 120_000, env: NodeJS.ProcessEnv = ENV): Promise<Finished> {
  return new Promise((done) => {
    execFile(command, args, { cwd, env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      done({ code, stdout, stderr: error !== null && typeof error.code !== 'number' ? `${stderr}\n${error.message}` : stderr });
    });
  });
}

function shown(result: Finished): string {
  return `exit ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

let work: string;
let project: string;
let pack: PackResult;

/** A command in the consumer project, as its user would type it (`npx …`). */
function inProject(args: readonly string[], timeoutMs?: number): Promise<Finished> {
  return run('npx', args, project, timeoutMs);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'loopgate-consumer-'));
  const packed = await run('npm', ['pack', '--json', '--pack-destination', work], REPO, INSTALL_TIMEOUT_MS);
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${shown(packed)}`);
  pack = (JSON.parse(packed.stdout) as PackResult[])[0]!;

  project = join(work, 'project');
  cpSync(FIXTURE, project, { recursive: true, filter: (from) => !relative(FIXTURE, from).split(sep).includes('node_modules') });
  const repoManifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  const manifestPath = join(project, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
  // The project's tools are the versions this repository pins (its own `node` above all).
  for (const name of Object.keys(manifest.devDependencies)) {
    const version = repoManifest.devDependencies[name];
    if (version === undefined) throw new Error(`fixture-project devDependency ${name} is not a devDependency of the repository`);
    manifest.devDependencies[name] = version;
  }
  manifest.dependencies.loopgate = `file:${join(work, pack.filename)}`;
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);

  const installed = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], project, INSTALL_TIMEOUT_MS);
  if (installed.code !== 0) throw new Error(`npm install of the packed tarball failed:\n${shown(installed)}`);
}, INSTALL_TIMEOUT_MS * 2);

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('holds the built JavaScript, its declarations and what the runtime reads — no sources, tests or tooling', () => {
    const paths = pack.files.map((f) => f.path);
    for (const needed of [
      'package.json',
      'README.md',
      'bin/loopgate.js',
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/src/vitest.js',
      'dist/src/vitest.d.ts',
      'dist/src/cli/main.js',
      'dist/scenarios/example-agent/tools.js',
      'dist/state-tables/loop-table.js',
      'scenarios/scenario.schema.json',
    ]) {
      expect(paths, needed).toContain(needed);
    }
    const bundled = readdirSync(join(REPO, 'scenarios', 'bundled'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml'));
    expect(bundled.length).toBeGreaterThan(0);
    for (const file of bundled) expect(paths).toContain(`dist/scenarios/bundled/${file}`);

    const unwanted = paths.filter(
      (p) =>
        /\.test\.|^test\/|^bench\/|^\.ci\/|^reports\/|^scripts\/|^src\/|^providers\/|^state-tables\//.test(p) || (p.endsWith('.ts') && !p.endsWith('.d.ts')),
    );
    expect(unwanted).toEqual([]);
  });

  it('ships every file its shipped documents link to', () => {
    const paths = new Set(pack.files.map((f) => f.path));
    const broken: string[] = [];
    for (const doc of [...paths].filter((p) => p.endsWith('.md'))) {
      const text = readFileSync(join(REPO, doc), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const path = target!.split('#')[0]!;
        if (path === '' || /^[a-z]+:/.test(path)) continue; // an anchor, a web address
        const resolved = posix.normalize(posix.join(posix.dirname(doc), path)).replace(/\/$/, '');
        if (!paths.has(resolved) && ![...paths].some((p) => p.startsWith(`${resolved}/`))) broken.push(`${doc}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('runs on the project’s own pinned Node', async () => {
    const repoNode = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { devDependencies: { node: string } }).devDependencies.node;
    const version = await inProject(['node', '--version']);
    expect(version.stdout.trim(), shown(version)).toBe(`v${repoNode}`);
  });
});

describe('npx loopgate in the consumer project', () => {
  it('runs the agent of the project’s loopgate.config.ts on its scenarios: exit 0, and exit 1 once one expectation is broken', async () => {
    const passing = await inProject(['loopgate', 'run', '--out', join(work, 'reports-passing')]);
    expect(passing.code, shown(passing)).toBe(0);
    // Every scenario runs twice: through the loop directly and through the production host (ids `…@host`).
    expect(passing.stdout).toContain('PASSED: 8 of 8');
    expect(existsSync(join(work, 'reports-passing', 'results.json'))).toBe(true);
    // Case ids are the files' paths from the config's folder, whatever the working directory.
    const fromSub = await run('npx', ['loopgate', 'run', '--reporter', 'json', '--out', join(work, 'reports-sub')], join(project, 'src'));
    expect(fromSub.code, shown(fromSub)).toBe(0);
    const ids = (JSON.parse(readFileSync(join(work, 'reports-sub', 'results.json'), 'utf8')) as { cases: { id: string }[] }).cases.map((c) => c.id).sort();
    const files = ['order-status', 'reserve-same-seat-in-another-case', 'reserve-seat', 'reserve-seat-timeout'];
    expect(ids).toEqual(files.flatMap((f) => [`scenario:scenarios/${f}`, `scenario:scenarios/${f}@host`]).sort());

    const file = join(project, 'scenarios', 'reserve-seat.yaml');
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('executions: { reserve_seat: 1 }');
    writeFileSync(file, text.replace('executions: { reserve_seat: 1 }', 'executions: { reserve_seat: 2 }'));
    try {
      const failing = await inProject(['loopgate', 'run', '--out', join(work, 'reports-failing')]);
      expect(failing.code, shown(failing)).toBe(1);
      expect(failing.stdout).toContain('scenario:scenarios/reserve-seat');
      expect(failing.stdout).toMatch(/8 cases, 6 passed, 2 failed/);
    } finally {
      writeFileSync(file, text);
    }
  });

  it('refuses, before running anything, a scenario that would downgrade the agent’s STATEFUL tool — and an empty folder passes nothing', async () => {
    const bad = join(project, 'scenarios-bad');
    cpSync(join(project, 'scenarios'), bad, { recursive: true });
    writeFileSync(
      join(bad, 'reserve-seat.yaml'),
      readFileSync(join(bad, 'reserve-seat.yaml'), 'utf8').replace('provider:', 'tools:\n  - name: reserve_seat\n    sideEffect: NONE\nprovider:'),
    );
    const refused = await inProject(['loopgate', 'run', 'scenarios-bad', '--out', join(work, 'reports-bad')]);
    expect(refused.code, shown(refused)).toBe(2);
    expect(refused.stderr).toMatch(/scenarios-bad\/reserve-seat\.yaml:4:\d+: tools\[0\]\.sideEffect: reserve_seat is agent travel's own tool/);
    expect(existsSync(join(work, 'reports-bad'))).toBe(false);

    const empty = join(project, 'scenarios-empty');
    cpSync(join(project, 'src'), join(empty, 'not-scenarios'), { recursive: true });
    const nothing = await inProject(['loopgate', 'run', 'scenarios-empty', '--out', join(work, 'reports-empty')]);
    expect(nothing.code, shown(nothing)).toBe(1);
    expect(nothing.stderr).toMatch(/nothing was checked/);
  });

  it('gates the team’s own AI SDK agent (its tools, its generateText options) in the AI SDK’s loop, through loopgate.ai-sdk.config.ts', async () => {
    const config = ['--config', 'loopgate.ai-sdk.config.ts', '--reporter', 'console', 'json'];
    const holds = await inProject(['loopgate', 'run', ...config, '--out', join(work, 'reports-ai-holds'), 'scenarios-ai/reserve-seat.yaml']);
    expect(holds.code, shown(holds)).toBe(0);
    expect(holds.stderr).toMatch(/gating ai-sdk \(ai 6\.\d+\.\d+; history: on-success\)/);
    expect(holds.stdout).toContain('PASSED: 1 of 1');
    // The same agent's reservation runs twice when the model repeats the call id: the AI SDK's loop breaks invariant 13,
    // and — the config's own loop, judged in full — the team's own `executions: { reserve_seat: 1 }`.
    const violated = await inProject(['loopgate', 'run', ...config, '--out', join(work, 'reports-ai')]);
    expect(violated.code, shown(violated)).toBe(1);
    expect(violated.stderr).toMatch(/model-repeats-the-call-id — executions reserve_seat: [^\n]*invariant-13-side-effects-once/);
    const results = JSON.parse(readFileSync(join(work, 'reports-ai', 'results.json'), 'utf8')) as { cases: { id: string; status: string }[] };
    expect(results.cases.map((c) => `${c.id} ${c.status}`).sort()).toEqual([
      'scenario:scenarios-ai/model-repeats-the-call-id failed',
      'scenario:scenarios-ai/reserve-seat passed',
    ]);
    // In loopgate's own loop the very same tools keep it: the repeat is recognised, the seat reserved once.
    const own = await inProject(['loopgate', 'run', ...config, '--loop', 'loopgate', '--host', 'loop', '--out', join(work, 'reports-ai-own')]);
    expect(own.code, shown(own)).toBe(0);
  });

  it('gates the agent through the team’s own model client, named in loopgate.own-client.config.ts by its contract harness', async () => {
    const config = ['--config', 'loopgate.own-client.config.ts', '--reporter', 'console', 'json'];
    const holds = await inProject(['loopgate', 'run', ...config, '--out', join(work, 'reports-own')]);
    expect(holds.code, shown(holds)).toBe(0);
    expect(holds.stdout).toContain('PASSED: 2 of 2');
    // The client's bug (the gateway's retry-after ignored) fails the team's scenario on both hosts.
    const broken = await run('npx', ['loopgate', 'run', ...config, '--out', join(work, 'reports-own-broken')], project, 120_000, {
      ...ENV,
      SKYLINE_BUG: 'no-retry-after',
    });
    expect(broken.code, shown(broken)).toBe(1);
    expect(broken.stdout).toMatch(/clock: expected 7000, got 3000/);
    expect(broken.stdout).toMatch(/2 cases, 0 passed, 2 failed/);
  });

  it('gates the team’s AI SDK 6 ToolLoopAgent as it ships, built by its own function, through loopgate.tool-loop-agent.config.ts', async () => {
    const config = ['--config', 'loopgate.tool-loop-agent.config.ts', '--reporter', 'console', 'json'];
    const holds = await inProject(['loopgate', 'run', ...config, '--out', join(work, 'reports-tla-holds'), 'scenarios-ai/reserve-seat.yaml']);
    expect(holds.code, shown(holds)).toBe(0);
    expect(holds.stderr).toMatch(/gating ai-sdk \(ai 6\.\d+\.\d+ \(ToolLoopAgent\); history: on-success\)/);
    expect(holds.stdout).toContain('PASSED: 1 of 1');
    // Its tools run through the gate: the repeated call id runs the reservation twice in the AI SDK's loop, as above.
    const violated = await inProject(['loopgate', 'run', ...config, '--out', join(work, 'reports-tla')]);
    expect(violated.code, shown(violated)).toBe(1);
    expect(violated.stderr).toMatch(/model-repeats-the-call-id — executions reserve_seat: [^\n]*invariant-13-side-effects-once/);
    // In loopgate's own loop its stopWhen would not run: each case is refused naming it (outside probe 41, F1)…
    const refused = await inProject(['loopgate', 'run', ...config, '--loop', 'loopgate', '--host', 'loop', '--out', join(work, 'reports-tla-refused')]);
    expect(refused.code, shown(refused)).toBe(1);
    expect(refused.stderr).toMatch(
      /the factory threw: .*toolLoopAgent: loopgate's loop and host run only the agent's instructions, tools and context, and it has what only the AI SDK's generate\(\) runs: stopWhen \(a stop condition\)/,
    );
    // …and once the team says it serves it without: its instructions and tools, the seat reserved once.
    writeFileSync(
      join(project, 'loopgate.tool-loop-agent-served.config.ts'),
      readFileSync(join(project, 'loopgate.tool-loop-agent.config.ts'), 'utf8').replace(
        "{ sideEffects: { reserve_seat: 'STATEFUL' } }",
        "{ sideEffects: { reserve_seat: 'STATEFUL' }, outsideItsLoop: 'instructions-and-tools' }",
      ),
    );
    const served = ['--config', 'loopgate.tool-loop-agent-served.config.ts', '--reporter', 'console', 'json'];
    const own = await inProject(['loopgate', 'run', ...served, '--loop', 'loopgate', '--host', 'loop', '--out', join(work, 'reports-tla-own')]);
    expect(own.code, shown(own)).toBe(0);
  });

  it('gates the team’s OpenAI Agents Agent as it ships, built by its own function, through loopgate.openai-agent.config.ts', async () => {
    const config = ['--config', 'loopgate.openai-agent.config.ts', '--reporter', 'console', 'json'];
    const holds = await inProject(['loopgate', 'run', ...config, '--out', join(work, 'reports-oa-holds')]);
    expect(holds.code, shown(holds)).toBe(0);
    expect(holds.stderr).toMatch(/gating openai-agents \(@openai\/agents 0\.\d+\.\d+ \(Agent\); history: the peer’s own Session \(MemorySession\)\)/);
    expect(holds.stdout).toContain('PASSED: 2 of 2');
    // The team's errorFunction hides the second reservation's throw from the SDK ("not reserved: …"): the gate still
    // reads that call failed, so a scenario that takes it for a reservation fails.
    writeFileSync(
      join(project, 'seat-taken-read-as-ok.yaml'),
      readFileSync(join(project, 'scenarios-agents', 'seat-taken-told-and-failed.yaml'), 'utf8').replace("'user: result#r2 failed'", "'user: result#r2 ok'"),
    );
    const wrong = await inProject(['loopgate', 'run', ...config, '--out', join(work, 'reports-oa-wrong'), 'seat-taken-read-as-ok.yaml']);
    expect(wrong.code, shown(wrong)).toBe(1);
    expect(wrong.stderr).toContain('history: no line contains "user: result#r2 ok"');
    // The same agent in loopgate's own loop: its instructions and tools, the throw its errorFunction hides a failure.
    const own = await inProject(['loopgate', 'run', ...config, '--loop', 'loopgate', '--host', 'loop', '--out', join(work, 'reports-oa-own')]);
    expect(own.code, shown(own)).toBe(0);
    expect(own.stdout).toContain('PASSED: 2 of 2');
  });

  it('stops a run whose tool never yields at the hang limit, naming the case and the line: the watchdog ships', async () => {
    // The watchdog's thread is a module of its own, loaded by URL: a build that leaves it out hangs here instead.
    writeFileSync(
      join(project, 'loopgate.spin.config.ts'),
      [
        "import { defineConfig, defineTool } from 'loopgate';",
        "import { z } from 'zod';",
        "const spin = defineTool({ name: 'reserve_seat', description: 'd', input: z.object({}), sideEffect: 'NONE', run: () => { for (;;) {} } });",
        "export default defineConfig({ agents: { a: () => ({ tools: [spin] }) }, host: 'loop' });",
        '',
      ].join('\n'),
    );
    const spun = await run(
      'npx',
      ['loopgate', 'run', '--config', 'loopgate.spin.config.ts', 'scenarios/reserve-seat.yaml', '--out', join(work, 'reports-spin')],
      project,
      45_000,
      { ...ENV, LOOPGATE_HANG_TIMEOUT_MS: '2000' },
    );
    expect(spun.code, shown(spun)).toBe(1);
    expect(spun.stderr).toContain(
      "the run stopped: the code under test held loopgate's only thread for 2 s without yielding, in case scenario:scenarios/reserve-seat",
    );
    expect(spun.stderr).toMatch(/^loopgate: {3}at run \(file:\/\/\S+\/loopgate\.spin\.config\.ts:3:\d+\)$/m);
    expect(existsSync(join(work, 'reports-spin', 'results.json'))).toBe(false);
  });

  it('fuzzes the config’s agent', async () => {
    const fuzzed = await inProject(['loopgate', 'fuzz', '--runs', '50', '--seed', '3', '--reporter', 'json', '--out', join(work, 'reports-fuzz')]);
    expect(fuzzed.code, shown(fuzzed)).toBe(0);
    expect(fuzzed.stderr).toMatch(/fuzz: 50 runs/);
  });

  it('runs the bundled suite from inside node_modules (the files beside the build are found)', async () => {
    const config = join(project, 'node_modules', 'loopgate', 'dist', 'scenarios', 'bundled', 'loopgate.config.js');
    // The whole bundled suite (some 780 cases): a hang guard well above its run on a loaded machine, not a speed check.
    const bundled = await inProject(['loopgate', 'run', '--config', config, '--out', join(work, 'reports-bundled')], 240_000);
    expect(bundled.code, shown(bundled)).toBe(0);
    const scenarios = readdirSync(join(REPO, 'scenarios', 'bundled'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml')).length;
    // Each bundled file runs through the loop and (unless pinned to one) through the production host too.
    const total = Number(/scenario +\d+ passed(?:, \d+ skipped)? \((\d+)\)/.exec(bundled.stdout)?.[1]);
    expect(total, bundled.stdout).toBeGreaterThan(scenarios);
    expect(total).toBeLessThanOrEqual(2 * scenarios);
  }, 300_000);
});

describe('loopgate as a library in the consumer project', () => {
  it('imports in plain Node ESM, runs a scenario and the fuzzer, and does not load vitest', async () => {
    const imported = await inProject(['node', 'check-import.mjs']);
    expect(imported.code, shown(imported)).toBe(0);
    const summary = JSON.parse(imported.stdout) as { exports: number; scenario: string; fuzzRuns: number };
    expect(summary).toMatchObject({ scenario: 'passed', fuzzRuns: 5 });
    expect(summary.exports).toBeGreaterThan(50);
  });

  it('runs the project’s scenario files through loopgate/vitest in the project’s own vitest', async () => {
    const tested = await inProject(['vitest', 'run', '--reporter', 'verbose']);
    expect(tested.code, shown(tested)).toBe(0);
    for (const name of ['order-status', 'reserve-seat', 'reserve-same-seat-in-another-case', 'reserve-seat-timeout']) {
      expect(tested.stdout).toMatch(new RegExp(`✓ .*consumer scenarios > scenarios/${name}(\\s|$)`, 'm'));
      expect(tested.stdout).toMatch(new RegExp(`✓ .*consumer scenarios > scenarios/${name}@host(\\s|$)`, 'm'));
    }
    // 8 cases, the describe's own check that something was checked, and the one-file test.
    expect(tested.stdout).toMatch(/✓ .*consumer scenarios > \(loopgate\) something was checked/);
    expect(tested.stdout).toMatch(/Tests +10 passed \(10\)/);
  });

  it('type-checks the project’s code under strict, with loopgate’s declarations checked and without allowImportingTsExtensions', async () => {
    const tsconfig = JSON.parse(readFileSync(join(project, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
    expect(tsconfig.compilerOptions).toMatchObject({ strict: true, skipLibCheck: false });
    expect(tsconfig.compilerOptions).not.toHaveProperty('allowImportingTsExtensions');
    const checked = await inProject(['tsc', '--noEmit', '-p', 'tsconfig.json']);
    expect(checked.code, shown(checked)).toBe(0);
    // The AI SDK agent and its config, typed against loopgate/loops/ai-sdk (the AI SDK's own declarations need its lib settings).
    const aiSdk = await inProject(['tsc', '--noEmit', '-p', 'tsconfig.ai-sdk.json']);
    expect(aiSdk.code, shown(aiSdk)).toBe(0);
  });
});
