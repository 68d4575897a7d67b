/**
 * `npm run mutate`: the gate's own power, measured. Mutates a reproducible sample
 * of the kernel, the provider adapters and the host's crash recovery with
 * Stryker, judges every mutant either by the gate alone (`loopgate run` on the
 * bundled suite plus a bounded `loopgate fuzz`) or by the whole vitest suite,
 * and writes the score per area and the surviving mutants to
 * bench/results/mutation-<judge>.md and .json. See bench/README.md.
 *
 * Exit 0 when the run finished (a score is a measurement, not a verdict),
 * 1 when Stryker could not run, 2 on bad input (nothing run or written).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { machine } from '../bench/lib/machine.ts';
import { readGateRun, sitesToRejudge, type GateRun } from './mutate/after-gate.ts';
import { areaFiles, areaOf, AREA_NAMES, posix, type AreaName } from './mutate/areas.ts';
import { MutateUsageError, parseMutateArgs, USAGE } from './mutate/args.ts';
import { renderMarkdown, summarize, type MutantLine, type StrykerReport } from './mutate/report.ts';
import { population, sampleSites } from './mutate/sample.ts';
import { SITES_ENV, type SitesFile } from './mutate/sample-ignorer.ts';
import { enumerateSites, sitePattern, type Site } from './mutate/sites.ts';
import { strykerOptions, workDir } from './mutate/stryker-options.ts';

const ROOT = resolve(import.meta.dirname, '..');

function fail(message: string, code: number): never {
  process.stderr.write(`mutate: ${message}\n`);
  process.exit(code);
}

let args: ReturnType<typeof parseMutateArgs>;
try {
  args = parseMutateArgs(process.argv.slice(2));
} catch (error) {
  if (error instanceof MutateUsageError) fail(`${error.message}\n${USAGE}`, 2);
  throw error;
}
if (args === 'help') {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

let gate: GateRun | undefined;
if (args.afterGate !== undefined) {
  try {
    gate = readGateRun(resolve(args.afterGate));
  } catch (error) {
    if (error instanceof MutateUsageError) fail(error.message, 2);
    throw error;
  }
  args = { ...args, sample: gate.sample, seed: gate.seed, files: gate.files, areas: gate.areas.length < AREA_NAMES.length ? gate.areas : [] };
}

let files = areaFiles(ROOT);
if (args.files.length > 0) {
  const wanted = args.files.map((f) => posix(f).replace(/^\.\//, ''));
  for (const f of wanted) {
    if (!areaOf(f)) fail(`--file ${f}: not one of the mutated files (src/kernel, the provider adapters, src/host, src/stores)`, 2);
    if (!files.some((x) => x.file === f)) fail(`--file ${f}: no such file`, 2);
  }
  files = files.filter((f) => wanted.includes(f.file));
}
if (args.areas.length > 0) {
  const outside = args.files.find((f) => !args.areas.includes(areaOf(posix(f).replace(/^\.\//, ''))!));
  if (outside !== undefined) fail(`--file ${outside}: not in --area ${args.areas.join(', ')}`, 2);
  files = files.filter((f) => args.areas.includes(f.area));
}

process.stderr.write(`mutate: listing the mutation sites of ${files.length} files…\n`);
const sites = await enumerateSites(ROOT, files);
const all = population(sites);
const sample = sampleSites(sites, args.sample, args.seed);
const sampledSites = Object.fromEntries(AREA_NAMES.map((a) => [a, sample.filter((s) => s.area === a).length])) as Record<AreaName, number>;
for (const area of AREA_NAMES) {
  const n = sample.filter((s) => s.area === area).reduce((k, s) => k + s.mutators.length, 0);
  process.stderr.write(`mutate: ${area}: ${sampledSites[area]} of ${all[area].sites} sites, ${n} of ${all[area].mutants} mutants\n`);
}
let run: readonly Site[] = sample;
let carried: readonly MutantLine[] = [];
if (gate) {
  try {
    ({ sites: run, carried } = sitesToRejudge(sample, sites, gate));
  } catch (error) {
    if (error instanceof MutateUsageError) fail(error.message, 2);
    throw error;
  }
  const runMutants = run.reduce((k, s) => k + s.mutators.length, 0);
  process.stderr.write(
    `mutate: after ${args.afterGate}: ${run.length} sites (${runMutants} mutants) to judge again, ${carried.length} kills of the gate carried over\n`,
  );
}
if (args.dryRun) {
  for (const s of run) process.stdout.write(`${s.area}\t${sitePattern(s)}\t${s.mutators.join(',')}\n`);
  process.exit(0);
}
if (sample.length === 0) fail('nothing to mutate', 2);

const dir = workDir(ROOT, args.judge);
mkdirSync(dir, { recursive: true });
mkdirSync(resolve(ROOT, args.out), { recursive: true });
const sitesFile: SitesFile = { root: ROOT, sites: groupByFile(run) };
const sitesPath = join(dir, 'sites.json');
writeFileSync(sitesPath, `${JSON.stringify(sitesFile)}\n`);
process.env[SITES_ENV] = sitesPath;

// Stryker runs the tests in a sandbox under .stryker-tmp/: the shared wire fixtures beside the repository are named absolutely.
const fixtures = resolve(ROOT, '..', 'shared', 'fixtures', 'wire');
if (process.env.LOOPGATE_WIRE_FIXTURES === undefined && existsSync(fixtures)) process.env.LOOPGATE_WIRE_FIXTURES = `${fixtures}/`;

const started = performance.now();
let report: StrykerReport = { files: {} };
if (run.length > 0) {
  const { Stryker } = await import('@stryker-mutator/core');
  try {
    process.chdir(ROOT);
    await new Stryker(
      strykerOptions({
        root: ROOT,
        judge: args.judge,
        patterns: run.map(sitePattern),
        concurrency: args.concurrency,
        coverage: args.coverage,
        incremental: args.incremental,
      }),
    ).runMutationTest();
  } catch (error) {
    fail(`Stryker did not finish: ${(error as Error)?.message ?? String(error)}`, 1);
  }
  report = JSON.parse(readFileSync(join(dir, 'mutation.json'), 'utf8')) as StrykerReport;
}
const wallSeconds = Math.round((performance.now() - started) / 1000);

const summary = summarize(
  report,
  {
    judge: args.judge,
    sample: args.sample,
    seed: args.seed,
    concurrency: args.concurrency,
    coverage: args.coverage,
    incremental: args.incremental,
    files: args.files,
    onlyAreas: args.areas,
    wallSeconds,
    strykerVersion: (JSON.parse(readFileSync(join(ROOT, 'node_modules', '@stryker-mutator', 'core', 'package.json'), 'utf8')) as { version: string }).version,
    machine: machine(),
    population: all,
    sampledSites,
    ...(gate ? { afterGate: { path: args.afterGate!, rejudgedSites: run.length, carried: carried.length } } : {}),
  },
  carried,
);
const base = join(resolve(ROOT, args.out), `mutation-${args.judge}`);
writeFileSync(`${base}.json`, `${JSON.stringify(summary, null, 2)}\n`);
writeFileSync(`${base}.md`, renderMarkdown(summary));
for (const area of AREA_NAMES) {
  const a = summary.areas[area];
  process.stderr.write(`mutate: ${args.judge} judge, ${area}: ${a.score ?? '–'}% of ${a.mutants} mutants (${a.survived + a.noCoverage} undetected)\n`);
}
process.stderr.write(`mutate: wrote ${base}.md and .json (Stryker's own report: ${join(dir, 'mutation.html')})\n`);

function groupByFile(list: readonly Site[]): SitesFile['sites'] {
  const out: Record<string, { start: Site['start']; end: Site['end'] }[]> = {};
  for (const s of list) (out[s.file] ??= []).push({ start: s.start, end: s.end });
  return out;
}
