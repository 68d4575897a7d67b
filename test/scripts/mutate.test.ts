/**
 * `npm run mutate`'s own parts (scripts/mutate): its command line, which files
 * are mutated, the reproducible sample, the ignorer that makes Stryker mutate
 * exactly the sampled sites (checked against Stryker's real instrumenter), and
 * the score. The mutation runs themselves are not part of `npm test`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Instrumenter } from '@stryker-mutator/instrumenter';
import type { NodePath } from '@stryker-mutator/api/ignore';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { CARRIED_PREFIX, readGateRun, sitesToRejudge, type GateRun } from '../../scripts/mutate/after-gate.ts';
import { areaFiles, areaOf } from '../../scripts/mutate/areas.ts';
import { DEFAULTS, MutateUsageError, parseMutateArgs } from '../../scripts/mutate/args.ts';
import { renderMarkdown, summarize, snippet, type MutantLine, type RunInfo, type StrykerReport } from '../../scripts/mutate/report.ts';
import { population, sampleSites } from '../../scripts/mutate/sample.ts';
import { strykerOptions } from '../../scripts/mutate/stryker-options.ts';
import { encloses, ignoreReason, NOT_SAMPLED, type SitesFile } from '../../scripts/mutate/sample-ignorer.ts';
import { enumerateSites, siteKey, type Site } from '../../scripts/mutate/sites.ts';

const ROOT = join(import.meta.dirname, '..', '..');

function usageError(argv: string[]): string {
  try {
    parseMutateArgs(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(MutateUsageError);
    return (error as Error).message;
  }
  throw new Error(`no usage error for ${argv.join(' ')}`);
}

/** A run of the gate judge, as the score tests read it. */
const GATE_RUN: RunInfo = {
  judge: 'gate',
  sample: 2,
  seed: 1,
  concurrency: 1,
  incremental: false,
  files: [],
  wallSeconds: 10,
  strykerVersion: 'x',
  machine: { cpu: 'c', cores: 2, memoryGiB: 1, os: 'o', node: 'n', date: 'd', loadAverage: [0.5] },
  population: {
    kernel: { sites: 10, mutants: 30 },
    adapters: { sites: 0, mutants: 0 },
    recovery: { sites: 5, mutants: 10 },
    host: { sites: 0, mutants: 0 },
    stores: { sites: 0, mutants: 0 },
  },
  sampledSites: { kernel: 2, adapters: 0, recovery: 1, host: 0, stores: 0 },
};

describe('the command line', () => {
  it('has defaults that fit a CI run', () => {
    expect(parseMutateArgs([])).toEqual({
      judge: DEFAULTS.judge,
      sample: DEFAULTS.sample,
      seed: DEFAULTS.seed,
      concurrency: DEFAULTS.concurrency,
      coverage: 'all',
      incremental: false,
      files: [],
      areas: [],
      out: DEFAULTS.out,
      dryRun: false,
    });
  });

  it('takes every flag', () => {
    expect(
      parseMutateArgs([
        '--judge',
        'suite',
        '--sample',
        'all',
        '--seed',
        '4294967295',
        '--concurrency',
        '1',
        '--coverage',
        'all',
        '--incremental',
        '--file',
        'src/host/recovery.ts',
        '--file',
        'src/kernel/clock.ts',
        '--area',
        'host',
        '--area',
        'recovery',
        '--area',
        'host',
        '--out',
        '/tmp/x',
        '--dry-run',
      ]),
    ).toEqual({
      judge: 'suite',
      sample: 'all',
      seed: 4_294_967_295,
      concurrency: 1,
      coverage: 'all',
      incremental: true,
      files: ['src/host/recovery.ts', 'src/kernel/clock.ts'],
      areas: ['host', 'recovery'],
      out: '/tmp/x',
      dryRun: true,
    });
    expect(parseMutateArgs(['--sample', '7'])).toMatchObject({ sample: 7 });
    expect(parseMutateArgs(['--judge', 'suite'])).toMatchObject({ coverage: 'perTest' });
    expect(parseMutateArgs(['--help'])).toBe('help');
    expect(parseMutateArgs(['--judge', 'suite', '--after-gate', 'bench/results/mutation-gate.json'])).toMatchObject({
      judge: 'suite',
      afterGate: 'bench/results/mutation-gate.json',
    });
    expect(parseMutateArgs([])).not.toHaveProperty('afterGate');
  });

  it('refuses bad input with one line naming the flag', () => {
    const cases: [string[], RegExp][] = [
      [['--judge', 'unit'], /^--judge "unit": expected gate or suite$/],
      [['--sample', '0'], /^--sample 0: expected an integer/],
      [['--sample', 'some'], /^--sample "some": expected an integer/],
      [['--seed', '-1'], /--seed/],
      [['--seed', '4294967296'], /^--seed 4294967296: expected an integer from 0 to 4294967295$/],
      [['--seed', '1.5'], /^--seed "1.5"/],
      [['--concurrency', '0'], /^--concurrency 0/],
      [['--out', ''], /^--out ""/],
      [['--coverage', 'pertest'], /^--coverage "pertest": expected perTest or all$/],
      [['--bogus'], /bogus/],
      [['extra'], /extra/],
      [['--after-gate', 'g.json'], /^--after-gate: only with --judge suite/],
      [['--judge', 'suite', '--after-gate', ''], /^--after-gate "": expected the path/],
      [['--judge', 'suite', '--after-gate', 'g.json', '--seed', '3'], /^--after-gate takes the sample, seed and files from the gate run: drop --seed$/],
      [['--judge', 'suite', '--after-gate', 'g.json', '--sample', '3'], /drop --sample$/],
      [['--judge', 'suite', '--after-gate', 'g.json', '--file', 'src/host/recovery.ts'], /drop --file$/],
      [['--judge', 'suite', '--after-gate', 'g.json', '--area', 'host'], /drop --area$/],
      [['--area', 'hosts'], /^--area "hosts": expected one of kernel, adapters, recovery, host, stores$/],
    ];
    for (const [argv, pattern] of cases) {
      const message = usageError(argv);
      expect(message, argv.join(' ')).toMatch(pattern);
      expect(message).not.toContain('\n');
    }
  });

  it('hands --coverage to Stryker as its coverage analysis', () => {
    const base = { root: ROOT, judge: 'gate', patterns: [], concurrency: 1, incremental: false } as const;
    expect(strykerOptions({ ...base, coverage: 'all' }).coverageAnalysis).toBe('all');
    expect(strykerOptions({ ...base, coverage: 'perTest' }).coverageAnalysis).toBe('perTest');
  });
});

describe('the files mutated', () => {
  it('are the kernel, the SDK adapters, crash recovery, the host and the stores — never tests, fakes, contract suites or recording tools', () => {
    expect(areaOf('src/kernel/loop/runner.ts')).toBe('kernel');
    expect(areaOf('src/kernel/log/decode.test.ts')).toBeUndefined();
    expect(areaOf('providers/anthropic/collect.ts')).toBe('adapters');
    expect(areaOf('providers/shared/retry-after.ts')).toBe('adapters');
    expect(areaOf('providers/clients.ts')).toBe('adapters');
    expect(areaOf('src/host/recovery.ts')).toBe('recovery');
    expect(areaOf('src/host/host.ts')).toBe('host');
    expect(areaOf('src/host/otel/otel-exporter.ts')).toBe('host');
    expect(areaOf('src/stores/sqlite-store.ts')).toBe('stores');
    expect(areaOf('src/stores/postgres-store-lock.ts')).toBe('stores');
    for (const other of [
      'providers/fake/scripted.ts',
      'providers/wire-fakes/openai-chat.ts',
      'providers/contract-suite/cases.ts',
      'providers/recording/scrub.ts',
      'src/harness/runner.ts',
      'src/stores/contract/cases.ts',
      'src/stores/store-conformance.ts',
      'src/stores/postgres-store-testing.ts',
    ])
      expect(areaOf(other), other).toBeUndefined();
    const files = areaFiles(ROOT);
    expect(files.every((f) => areaOf(f.file) === f.area)).toBe(true);
    expect(files.some((f) => f.area === 'recovery')).toBe(true);
    expect(files.filter((f) => f.area === 'recovery').map((f) => f.file)).toEqual(['src/host/recovery.ts']);
    expect(files.filter((f) => f.area === 'host').length).toBeGreaterThan(15);
    expect(files.filter((f) => f.area === 'stores').length).toBeGreaterThan(8);
    expect(files.filter((f) => f.area === 'kernel').length).toBeGreaterThan(40);
    expect(files.map((f) => f.file)).toEqual([...files.map((f) => f.file)].sort());
  });
});

function site(area: Site['area'], file: string, line: number, mutators = ['ConditionalExpression']): Site {
  return { area, file, start: { line, column: 0 }, end: { line, column: 10 }, mutators };
}

describe('the sample', () => {
  const sites = [
    ...Array.from({ length: 50 }, (_, i) => site('kernel', 'src/kernel/a.ts', i + 1)),
    ...Array.from({ length: 20 }, (_, i) => site('adapters', 'providers/shared/b.ts', i + 1, ['StringLiteral', 'BlockStatement'])),
    ...Array.from({ length: 3 }, (_, i) => site('recovery', 'src/host/recovery.ts', i + 1)),
  ];

  it('draws the same sites for the same seed, others for another, in source order', () => {
    const a = sampleSites(sites, 5, 42);
    expect(sampleSites(sites, 5, 42)).toEqual(a);
    expect(sampleSites(sites, 5, 43)).not.toEqual(a);
    expect(a).toEqual(sites.filter((s) => a.includes(s)));
  });

  it('takes N sites of each area (all of a smaller one), or every site', () => {
    const a = sampleSites(sites, 5, 1);
    expect(a.filter((s) => s.area === 'kernel')).toHaveLength(5);
    expect(a.filter((s) => s.area === 'adapters')).toHaveLength(5);
    expect(a.filter((s) => s.area === 'recovery')).toHaveLength(3);
    expect(new Set(a).size).toBe(a.length);
    expect(sampleSites(sites, 'all', 1)).toEqual(sites);
  });

  it("does not move one area's sample when another area grows", () => {
    const grown = [...sites, ...Array.from({ length: 30 }, (_, i) => site('adapters', 'providers/shared/c.ts', i + 1))];
    const kernel = (list: Site[]) => list.filter((s) => s.area === 'kernel');
    expect(kernel(sampleSites(grown, 5, 9))).toEqual(kernel(sampleSites(sites, 5, 9)));
  });

  it('counts the population per area', () => {
    expect(population(sites)).toEqual({
      kernel: { sites: 50, mutants: 50 },
      adapters: { sites: 20, mutants: 40 },
      recovery: { sites: 3, mutants: 3 },
      host: { sites: 0, mutants: 0 },
      stores: { sites: 0, mutants: 0 },
    });
  });
});

describe('the ignorer', () => {
  const sites: SitesFile['sites'] = { 'src/kernel/a.ts': [{ start: { line: 3, column: 2 }, end: { line: 9, column: 1 } }] };
  it('keeps a sampled site and what encloses it, and ignores what is nested inside it or elsewhere', () => {
    expect(ignoreReason(sites, 'src/kernel/a.ts', { start: { line: 3, column: 2 }, end: { line: 9, column: 1 } })).toBeUndefined();
    expect(ignoreReason(sites, 'src/kernel/a.ts', { start: { line: 1, column: 0 }, end: { line: 12, column: 0 } })).toBeUndefined();
    expect(ignoreReason(sites, 'src/kernel/a.ts', { start: { line: 4, column: 4 }, end: { line: 4, column: 20 } })).toBe(NOT_SAMPLED);
    expect(ignoreReason(sites, 'src/kernel/a.ts', { start: { line: 3, column: 2 }, end: { line: 9, column: 0 } })).toBe(NOT_SAMPLED);
    expect(ignoreReason(sites, 'src/kernel/a.ts', { start: { line: 10, column: 0 }, end: { line: 11, column: 0 } })).toBe(NOT_SAMPLED);
    expect(ignoreReason(sites, 'src/kernel/b.ts', { start: { line: 4, column: 4 }, end: { line: 4, column: 20 } })).toBeUndefined();
  });

  const quiet = { isDebugEnabled: () => false, debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, trace: () => {} };
  const file = 'src/kernel/loop/compaction.ts';
  const key = (m: { location: Pick<Site, 'start' | 'end'> }) =>
    siteKey({
      start: { line: m.location.start.line + 1, column: m.location.start.column },
      end: { line: m.location.end.line + 1, column: m.location.end.column },
    });

  /** What Stryker's instrumenter mutates in `file` given these sites as mutate ranges and the ignorer. */
  async function instrument(chosen: readonly Site[]) {
    const sitesFile: SitesFile['sites'] = { [file]: chosen.map((s) => ({ start: s.start, end: s.end })) };
    const ignorer = { shouldIgnore: (path: NodePath) => ignoreReason(sitesFile, file, (path as { node: { loc?: Site } }).node.loc) };
    const { mutants } = await new Instrumenter(quiet as never).instrument(
      [
        {
          name: join(ROOT, file),
          content: readFileSync(join(ROOT, file), 'utf8'),
          // Stryker's own ranges count lines from 0.
          mutate: chosen.map((s) => ({ start: { line: s.start.line - 1, column: s.start.column }, end: { line: s.end.line - 1, column: s.end.column } })),
        },
      ],
      { plugins: null, excludedMutations: [], ignorers: [ignorer] },
    );
    return { made: mutants.filter((m) => m.status !== 'Ignored'), ignored: mutants.filter((m) => m.status === 'Ignored') };
  }
  const expected = (chosen: readonly Site[]) => chosen.flatMap((s) => s.mutators.map((name) => `${siteKey(s)} ${name}`)).sort();

  it("makes Stryker's instrumenter mutate exactly the sampled sites' mutants, not what is nested in them", async () => {
    const all = await enumerateSites(ROOT, [{ area: 'kernel', file }]);
    const inside = (outer: Site, inner: Site) => inner !== outer && encloses(outer, inner);
    // Multi-line sites with sites inside them, and single-line ones; none inside another.
    const blocks = all.filter((s) => s.end.line > s.start.line && all.some((t) => inside(s, t)));
    expect(blocks.length, 'sites with sites inside them').toBeGreaterThan(1);
    const chosen = [blocks[0]!, ...sampleSites(all, 6, 3)].filter((s, i, list) => list.indexOf(s) === i && !list.some((o) => inside(o, s)));
    const { made, ignored } = await instrument(chosen);
    expect(made.map((m) => `${key(m)} ${m.mutatorName}`).sort()).toEqual(expected(chosen));
    expect(ignored.length).toBeGreaterThan(0);
  });

  it('with one sampled site inside another, also mutates the nodes between them (a known, rare extra)', async () => {
    const all = await enumerateSites(ROOT, [{ area: 'kernel', file }]);
    const outer = all.find((s) => s.end.line > s.start.line && all.some((t) => t !== s && encloses(s, t)))!;
    const inner = all.filter((t) => t !== outer && encloses(outer, t)).at(-1)!;
    const { made } = await instrument([outer, inner]);
    const got = made.map((m) => `${key(m)} ${m.mutatorName}`);
    for (const want of expected([outer, inner])) expect(got).toContain(want);
    for (const extra of made.filter((m) => !expected([outer, inner]).includes(`${key(m)} ${m.mutatorName}`))) {
      const loc = {
        start: { line: extra.location.start.line + 1, column: extra.location.start.column },
        end: { line: extra.location.end.line + 1, column: extra.location.end.column },
      };
      expect(encloses(outer, loc) && encloses(loc, inner), `${key(extra)} lies between the two sites`).toBe(true);
    }
  });
});

describe('the score', () => {
  const loc = (line: number, from: number, to: number) => ({ start: { line, column: from }, end: { line, column: to } });
  const report: StrykerReport = {
    files: {
      'src/kernel/a.ts': {
        source: 'const a = 1;\nif (x > 0) run();\n',
        mutants: [
          { id: '1', mutatorName: 'EqualityOperator', replacement: 'x >= 0', location: loc(2, 5, 10), status: 'Killed', coveredBy: ['t1'], killedBy: ['t1'] },
          { id: '2', mutatorName: 'ConditionalExpression', replacement: 'true', location: loc(2, 5, 10), status: 'Survived', coveredBy: ['t1', 't2'] },
          { id: '3', mutatorName: 'ConditionalExpression', replacement: 'false', location: loc(2, 5, 10), status: 'Timeout', coveredBy: ['t1'] },
          { id: '4', mutatorName: 'BlockStatement', replacement: '{}', location: loc(1, 1, 13), status: 'Ignored' },
        ],
      },
      'src/host/recovery.ts': {
        source: 'x\n',
        mutants: [
          { id: '5', mutatorName: 'StringLiteral', replacement: '""', location: loc(1, 1, 2), status: 'NoCoverage' },
          { id: '6', mutatorName: 'StringLiteral', replacement: '""', location: loc(1, 1, 2), status: 'RuntimeError' },
        ],
      },
      'providers/fake/scripted.ts': { source: '', mutants: [{ id: '7', mutatorName: 'X', location: loc(1, 1, 1), status: 'Survived' }] },
    },
  };

  it('counts killed and timed-out as detected, survived and unreached as not, errors and ignored apart, per area', () => {
    const s = summarize(report, GATE_RUN);
    expect(s.areas.kernel).toEqual({ sites: 2, mutants: 3, killed: 1, timeout: 1, survived: 1, noCoverage: 0, errors: 0, score: 66.7 });
    expect(s.areas.recovery).toEqual({ sites: 1, mutants: 2, killed: 0, timeout: 0, survived: 0, noCoverage: 1, errors: 1, score: 0 });
    expect(s.areas.adapters.score).toBeUndefined();
    expect(s.pooledScore).toBe(50);
    expect(s.estimatedScore).toBe(Math.round(((66.7 * 30 + 0 * 10) / 40) * 10) / 10);
    expect(s.survivors.map((m) => [m.file, m.status, m.original])).toEqual([
      ['src/kernel/a.ts', 'Survived', 'x > 0'],
      ['src/host/recovery.ts', 'NoCoverage', 'x'],
    ]);
  });

  it('quotes the mutated source on one line', () => {
    expect(snippet('a\n  if (x &&\n    y) {\n', { start: { line: 2, column: 7 }, end: { line: 3, column: 6 } })).toBe('x && y');
  });
});

describe('the suite judge after a gate run (--after-gate)', () => {
  const site = (file: string, line: number, column: number, mutators: string[]): Site => ({
    area: file.startsWith('src/host') ? 'recovery' : 'kernel',
    file,
    start: { line, column },
    end: { line, column: column + 5 },
    mutators,
  });
  // Sites count columns from 0 (Babel), Stryker's report from 1.
  const sample = [
    site('src/kernel/a.ts', 2, 4, ['EqualityOperator', 'ConditionalExpression']),
    site('src/kernel/a.ts', 7, 0, ['BlockStatement']),
    site('src/host/recovery.ts', 3, 2, ['StringLiteral']),
  ];
  // A node enclosing the first sampled site: the gate run mutated it too (sample-ignorer.ts keeps it).
  const enclosing = site('src/kernel/a.ts', 2, 0, ['ObjectLiteral']);
  const all = [enclosing, ...sample, site('src/kernel/b.ts', 1, 0, ['StringLiteral'])];
  const mutant = (file: string, line: number, column: number, mutator: string, status: string, killedBy?: string): MutantLine => ({
    area: file.startsWith('src/host') ? 'recovery' : 'kernel',
    file,
    line,
    column,
    mutator,
    original: 'x',
    replacement: 'y',
    status,
    ...(killedBy ? { killedBy } : {}),
  });
  const gate = (mutants: MutantLine[]): GateRun => ({ path: 'g.json', sample: 3, seed: 15, files: [], areas: ['kernel', 'recovery'], mutants });

  it('runs again only the sites where the gate left a mutant alive, and carries its other kills over, named as the gate’s', () => {
    const { sites, carried } = sitesToRejudge(
      sample,
      all,
      gate([
        mutant('src/kernel/a.ts', 2, 5, 'EqualityOperator', 'Killed', 'loopgate run > scenario:x'),
        mutant('src/kernel/a.ts', 2, 5, 'ConditionalExpression', 'Survived'),
        mutant('src/kernel/a.ts', 7, 1, 'BlockStatement', 'Killed', 'loopgate fuzz > seed 1'),
        mutant('src/host/recovery.ts', 3, 3, 'StringLiteral', 'Timeout'),
      ]),
    );
    expect(sites).toEqual([sample[0], sample[2]]);
    expect(carried.map((m) => [m.file, m.line, m.status, m.killedBy])).toEqual([['src/kernel/a.ts', 7, 'Killed', `${CARRIED_PREFIX}loopgate fuzz > seed 1`]]);
  });

  it('judges again a mutant of a node enclosing a sampled site when the gate left it alive, at its own site', () => {
    const killed = mutant('src/kernel/a.ts', 2, 5, 'EqualityOperator', 'Killed', 't');
    const alive = sitesToRejudge(sample, all, gate([killed, mutant('src/kernel/a.ts', 2, 1, 'ObjectLiteral', 'Survived')]));
    // The sampled sites 7:0 and recovery 3:2 have no mutant in this gate run: judged now, never assumed killed.
    expect(alive.sites).toEqual([enclosing, sample[1], sample[2]]);
    expect(alive.carried.map((m) => m.mutator)).toEqual(['EqualityOperator']);
    const dead = sitesToRejudge(sample, all, gate([killed, mutant('src/kernel/a.ts', 2, 1, 'ObjectLiteral', 'Killed', 't')]));
    expect(dead.sites).toEqual([sample[1], sample[2]]);
    expect(dead.carried.map((m) => m.mutator)).toEqual(['EqualityOperator', 'ObjectLiteral']);
  });

  it('refuses a gate run of other code: a mutant that is no mutation site of this code', () => {
    expect(() => sitesToRejudge(sample, all, gate([mutant('src/kernel/a.ts', 2, 4, 'EqualityOperator', 'Killed')]))).toThrow(
      /^--after-gate g\.json: src\/kernel\/a\.ts:2:4 \(EqualityOperator\) is not a mutation site of this code: the code changed/,
    );
    expect(() => sitesToRejudge(sample, all, gate([mutant('src/kernel/a.ts', 2, 5, 'ArithmeticOperator', 'Killed')]))).toThrow(MutateUsageError);
  });

  it('reads only a gate judge’s summary, and says what is wrong with any other file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'after-gate-'));
    const write = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    const ok = { judge: 'gate', sample: 30, seed: 15, files: [], mutants: [mutant('src/kernel/a.ts', 2, 5, 'EqualityOperator', 'Killed')] };
    expect(readGateRun(write('ok.json', JSON.stringify(ok)))).toMatchObject({
      sample: 30,
      seed: 15,
      files: [],
      areas: ['kernel', 'adapters', 'recovery', 'host', 'stores'],
    });
    // A run before the host and the stores were areas mutated three: its --after-gate re-judges those three alone.
    const old = { ...ok, population: { kernel: { sites: 1, mutants: 1 }, adapters: { sites: 1, mutants: 1 }, recovery: { sites: 1, mutants: 1 } } };
    expect(readGateRun(write('old.json', JSON.stringify(old))).areas).toEqual(['kernel', 'adapters', 'recovery']);
    expect(readGateRun(write('host.json', JSON.stringify({ ...old, onlyAreas: ['host'] }))).areas).toEqual(['host']);
    const refused: [string, string, RegExp][] = [
      ['missing.json', '', /missing\.json: no such file$/],
      ['bad.json', '{', /bad\.json: .*JSON/],
      ['suite.json', JSON.stringify({ ...ok, judge: 'suite' }), /its judge is "suite", not "gate"/],
      ['noseed.json', JSON.stringify({ ...ok, seed: 'x' }), /no seed/],
      ['badmutant.json', JSON.stringify({ ...ok, mutants: [{ file: 'a' }] }), /mutants\[0\] has no file, line, column, mutator and status/],
    ];
    for (const [name, text, pattern] of refused) {
      const path = text === '' ? join(dir, name) : write(name, text);
      expect(() => readGateRun(path), name).toThrow(pattern);
      try {
        readGateRun(path);
      } catch (error) {
        expect(error).toBeInstanceOf(MutateUsageError);
        expect((error as Error).message).not.toContain('\n');
      }
    }
  });

  it('scores the carried kills with the suite’s own verdicts and says so in the report', () => {
    const info: RunInfo = { ...GATE_RUN, judge: 'suite', sample: 3, seed: 15, afterGate: { path: 'g.json', rejudgedSites: 1, carried: 1 } };
    const loc = { start: { line: 2, column: 5 }, end: { line: 2, column: 10 } };
    const report: StrykerReport = {
      files: {
        'src/kernel/a.ts': {
          source: 'const a = 1;\nif (x > 0) run();\n',
          mutants: [
            { id: '1', mutatorName: 'EqualityOperator', replacement: 'x >= 0', location: loc, status: 'Killed', killedBy: ['t1'] },
            { id: '2', mutatorName: 'ConditionalExpression', replacement: 'true', location: loc, status: 'Survived' },
          ],
        },
      },
    };
    const s = summarize(report, info, [
      { ...mutant('src/kernel/a.ts', 7, 1, 'BlockStatement', 'Killed'), killedBy: `${CARRIED_PREFIX}t9` },
      // Judged again by this run (it survived here): this run's verdict stands, the carried kill is dropped.
      { ...mutant('src/kernel/a.ts', 2, 5, 'ConditionalExpression', 'Killed'), replacement: 'true', killedBy: `${CARRIED_PREFIX}t8` },
    ]);
    expect(s.areas.kernel).toMatchObject({ mutants: 3, killed: 2, survived: 1, score: 66.7 });
    expect(s.afterGate?.carried).toBe(1);
    const md = renderMarkdown(s);
    expect(md).toContain('npm run mutate -- --judge suite --after-gate g.json');
    expect(md).toContain('the whole suite ran at the 1 sites where the gate left a mutant alive');
    expect(md).toContain("the gate's 1 kills at the other sites are carried over");
  });
});
