/**
 * `npm run gate-coverage`: which product lines the gate never runs. Runs what a
 * user gates an agent with — `loopgate run` on the bundled suite and
 * `loopgate fuzz` on the mutation gate judge's four seeds (1,000 cases) — from
 * the TypeScript sources under V8 coverage, and lists, for the areas mutation
 * testing scores (the kernel, the provider adapters, the host's crash recovery)
 * and for the rest of the production host and the stores, every code line no
 * process ran. A bug planted on such a line passes the gate
 * whatever it does: each is a case to write or a line to argue unreachable
 * (bench/results/mutation-notes.md). Minutes, not Stryker's quarter hour: run it
 * first. Writes bench/results/gate-coverage.md and .json.
 *
 *   npm run gate-coverage [-- --runs N]     N fuzz cases per seed (default 250)
 *
 * Exit 0 when the gate ran and the list was written (coverage is a measure, not
 * a verdict), 1 when a gate command failed (a failing gate covers nothing
 * worth listing), 2 on bad input (nothing run or written).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeResults } from '../bench/lib/results.ts';
import { GATE_FUZZ, GATE_RUN_SEED } from '../bench/mutation/gate-budget.ts';
import { areaFiles } from './mutate/areas.ts';
import { MEASURED_AREA_NAMES, MEASURED_AREAS, type MeasuredAreaName } from './gate-coverage/areas.ts';
import { lineCoverage, markRan, spans, type ScriptCoverage } from './gate-coverage/lines.ts';

const ROOT = resolve(import.meta.dirname, '..');
const USAGE = 'usage: npm run gate-coverage [-- --runs N]   (N: fuzz cases per seed, a whole number ≥ 1; default 250)';

function fail(message: string, code: number): never {
  process.stderr.write(`gate-coverage: ${message}\n`);
  process.exit(code);
}

function parseArgs(argv: readonly string[]): { runs: number } | 'help' {
  let runs: number = GATE_FUZZ.runs;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') return 'help';
    if (arg === '--runs') {
      const value = argv[++i];
      if (value === undefined || !/^[1-9][0-9]{0,6}$/.test(value))
        fail(`--runs needs a whole number from 1 to 9999999, got ${value === undefined ? 'nothing' : JSON.stringify(value)}\n${USAGE}`, 2);
      runs = Number(value);
      continue;
    }
    fail(`unknown argument ${JSON.stringify(arg)}\n${USAGE}`, 2);
  }
  return { runs };
}

const args = parseArgs(process.argv.slice(2));
if (args === 'help') {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

const work = mkdtempSync(join(tmpdir(), 'loopgate-gate-coverage-'));
const coverageDir = join(work, 'v8');
const started = performance.now();
try {
  const commands: { label: string; argv: string[] }[] = [
    { label: `loopgate run (seed ${GATE_RUN_SEED})`, argv: ['run', '--seed', String(GATE_RUN_SEED), '--out', join(work, 'run')] },
    ...GATE_FUZZ.seeds.map((seed) => ({
      label: `loopgate fuzz --runs ${args.runs} --seed ${seed}`,
      argv: ['fuzz', '--runs', String(args.runs), '--seed', String(seed), '--out', join(work, `fuzz-${seed}`)],
    })),
  ];
  for (const command of commands) {
    process.stdout.write(`gate-coverage: ${command.label} …\n`);
    const child = spawnSync(process.execPath, [join(ROOT, 'bin/loopgate.js'), ...command.argv], {
      cwd: ROOT,
      env: { ...process.env, NODE_V8_COVERAGE: coverageDir, LOOPGATE_RUN_SOURCES: '1', NODE_DISABLE_COMPILE_CACHE: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    });
    if (child.status !== 0) {
      rmSync(work, { recursive: true, force: true });
      fail(`${command.label} exited ${child.status ?? child.signal}: the gate must pass before its coverage means anything\n${child.stderr.slice(-2000)}`, 1);
    }
  }

  // Merge every process's coverage per file of the scored areas.
  const files = areaFiles(ROOT, MEASURED_AREAS);
  const byUrl = new Map(files.map((f) => [pathToFileURL(join(ROOT, f.file)).href, f]));
  const sources = new Map<string, string>();
  const ran = new Map<string, Uint8Array>();
  for (const name of readdirSync(coverageDir)) {
    const data = JSON.parse(readFileSync(join(coverageDir, name), 'utf8')) as { result: ScriptCoverage[] };
    for (const script of data.result) {
      const file = byUrl.get(script.url);
      if (file === undefined) continue;
      let source = sources.get(file.file);
      if (source === undefined) sources.set(file.file, (source = readFileSync(join(ROOT, file.file), 'utf8')));
      let marks = ran.get(file.file);
      if (marks === undefined) ran.set(file.file, (marks = new Uint8Array(source.length)));
      markRan(script, source.length, marks);
    }
  }

  const perFile: { area: MeasuredAreaName; file: string; code: number; notRun: readonly number[] }[] = [];
  for (const { area, file } of files) {
    const source = sources.get(file) ?? readFileSync(join(ROOT, file), 'utf8');
    // A file no process loaded ran nothing.
    const { code, notRun } = lineCoverage(source, ran.get(file) ?? new Uint8Array(source.length));
    perFile.push({ area, file, code: code.length, notRun });
  }

  const areaRows = MEASURED_AREA_NAMES.map((area) => {
    const own = perFile.filter((f) => f.area === area);
    const code = own.reduce((n, f) => n + f.code, 0);
    const notRun = own.reduce((n, f) => n + f.notRun.length, 0);
    return [area, own.length, code, notRun, `${(((code - notRun) / Math.max(1, code)) * 100).toFixed(1)}%`] as const;
  });
  const holes = perFile.filter((f) => f.notRun.length > 0).sort((a, b) => b.notRun.length - a.notRun.length || (a.file < b.file ? -1 : 1));
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  writeResults(
    'gate-coverage',
    `Product lines the gate never runs: \`loopgate run\` on the bundled suite (seed ${GATE_RUN_SEED}) and \`loopgate fuzz\` on the mutation gate judge's seeds ${GATE_FUZZ.seeds.join(', ')} (${args.runs} cases each), from the TypeScript sources under V8 coverage, merged over every process; ${seconds} s. A code line is a line of what Node executes (types stripped) holding more than closing punctuation or an import. A bug planted on a line never run passes the gate, whatever it does. Reproduce: \`npm run gate-coverage\`.`,
    [
      { title: 'Per area', columns: ['area', 'files', 'code lines', 'never run by the gate', 'run'], rows: areaRows },
      {
        title: 'Lines never run, per file',
        columns: ['area', 'file', 'code lines', 'never run', 'lines'],
        rows: holes.map((f) => [f.area, `\`${f.file}\``, f.code, f.notRun.length, spans(f.notRun)]),
      },
    ],
    {
      runs: args.runs,
      seeds: GATE_FUZZ.seeds,
      runSeed: GATE_RUN_SEED,
      files: perFile.map((f) => ({ area: f.area, file: f.file, code: f.code, notRun: f.notRun })),
    },
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
