/**
 * `loopgate run` as users and CI call it: bad input exits 2 naming what was wrong
 * and where; shards merge to the unsharded result; the baseline gate catches a
 * planted regression and passes an unchanged run; live cases without a key are
 * skipped, visibly.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run, type RunArgs } from '../../src/cli/commands/run.ts';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { readResultsFile } from '../../src/report/json.ts';
import { mergeResults } from '../../src/report/merge.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'loopgate-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(args: string[]) {
  return spawnSync(process.execPath, [join(ROOT, 'bin/loopgate.js'), ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, CI: 'true' } });
}

const quiet = { out: () => {}, err: () => {}, tty: false };
const args = (over: Partial<RunArgs>): RunArgs => ({ reporter: ['json'], out: join(dir, 'out'), seed: 1, repeat: 1, ...over });

describe('loopgate run: bad input exits 2', () => {
  it('a bad scenario file: names the file, the line and the field', () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      ['name: broken', 'inbox:', '  - say: hello', 'provider:', '  script:', '    - reply: hi', 'expect:', '  outcome: replyed', ''].join('\n'),
    );
    const result = cli(['run', file, '--reporter', 'console']);
    expect(result.status).toBe(EXIT.usage);
    expect(result.stderr).toMatch(/bad\.yaml:8:\d+: expect\.outcome: an outcome label such as replied/);
  });

  it('a scenario file that is not YAML', () => {
    const file = join(dir, 'not-yaml.yaml');
    writeFileSync(file, 'name: [unclosed\n');
    const result = cli(['run', file]);
    expect(result.status).toBe(EXIT.usage);
    expect(result.stderr).toMatch(/not-yaml\.yaml:\d+:\d+: YAML syntax/);
  });

  // One test per input: each is a process of its own, and a loaded machine takes seconds to start one.
  for (const [argv, message] of [
    [['run', 'nowhere/'], /nowhere\/: no such file or directory/],
    [['run', '--shard', '3/2'], /--shard 3\/2: i must be between 1 and n/],
    [['run', '--seed', '-4'], /--seed -4: expected an integer/],
    [['run', '--reporter', 'pdf'], /pdf/],
    [['run', '--grep', '(['], /--grep .*not a regular expression/],
    [['run', '--live'], /--live needs --provider/],
    [['run', '--host', 'staging'], /--host "staging": expected loop, production or both/],
  ] as const) {
    it(`a path that does not exist, a bad shard, seed, reporter or grep: ${argv.join(' ')}`, () => {
      const result = cli([...argv]);
      expect(result.status, argv.join(' ')).toBe(EXIT.usage);
      expect(result.stderr, argv.join(' ')).toMatch(message);
    });
  }
});

describe('loopgate run: the hosts a scenario runs through', () => {
  const scenario = join(ROOT, 'scenarios/bundled/inbox/steer-joins-next-step.yaml');
  const ids = async (over: Partial<RunArgs>) => {
    const out = join(dir, `hosts-${over.host ?? 'default'}-${over.config ? 'config' : 'flag'}`);
    expect(await run(args({ paths: [scenario], out, ...over }), quiet)).toBe(EXIT.passed);
    return (await readResultsFile(join(out, 'results.json'))).cases.map((c) => c.id);
  };

  it('both by default: the loop, and the production host as <id>@host; --host picks one', async () => {
    const id = 'scenario:inbox/steer-joins-next-step';
    expect((await ids({})).sort()).toEqual([id, `${id}@host`]);
    expect(await ids({ host: 'production' })).toEqual([`${id}@host`]);
    expect(await ids({ host: 'loop' })).toEqual([id]);
  });

  it('a bundled scenario given by path has the id a full run gives it, from any working directory', async () => {
    const out = join(dir, 'from-elsewhere');
    const result = cli(['run', scenario, '--host', 'loop', '--reporter', 'json', '--out', out]); // cwd: a temporary folder
    expect(result.status).toBe(EXIT.passed);
    expect((await readResultsFile(join(out, 'results.json'))).cases.map((c) => c.id)).toEqual(['scenario:inbox/steer-joins-next-step']);
  });

  it('a config says which with host:, and a bad value exits 2 naming the key', async () => {
    const good = join(dir, 'hosts.config.ts');
    const agent = JSON.stringify(join(ROOT, 'scenarios/example-agent/agent.ts'));
    writeFileSync(
      good,
      `import { supportAgent } from ${agent};\nexport default { agents: { support: supportAgent }, host: 'production', scenarios: [${JSON.stringify(scenario)}] };\n`,
    );
    expect(await ids({ config: good })).toEqual([expect.stringMatching(/steer-joins-next-step@host$/)]);
    const bad = join(dir, 'bad-host.config.mjs');
    writeFileSync(bad, "export default { host: 'staging' };\n");
    const result = cli(['run', '--config', bad]);
    expect(result.status).toBe(EXIT.usage);
    expect(result.stderr).toMatch(/bad-host\.config\.mjs:\d+: host: expected loop, production or both, got "staging"/);
  });
});

describe('loopgate run: shards', () => {
  it('--shard 1/2 and 2/2, merged, give the same results as the unsharded run', async () => {
    // Every kind of case (tables, contract cases, scenarios through both hosts), not the whole suite three times over.
    const grep = '^(table:cancel_|contract:anthropic-json/|scenario:inbox/steer)';
    expect(await run(args({ out: join(dir, 'all'), grep }), quiet)).toBe(EXIT.passed);
    expect(await run(args({ out: join(dir, 's1'), shard: '1/2', grep }), quiet)).toBe(EXIT.passed);
    expect(await run(args({ out: join(dir, 's2'), shard: '2/2', grep }), quiet)).toBe(EXIT.passed);
    const all = await readResultsFile(join(dir, 'all/results.json'));
    const s1 = await readResultsFile(join(dir, 's1/results.json'));
    const s2 = await readResultsFile(join(dir, 's2/results.json'));
    expect(new Set(all.cases.map((c) => c.kind))).toEqual(new Set(['table', 'contract', 'scenario']));
    expect(s1.cases.length).toBeGreaterThan(0);
    expect(s2.cases.length).toBeGreaterThan(0);
    const merged = mergeResults([
      { source: 's1', results: s1 },
      { source: 's2', results: s2 },
    ]);
    const shape = (r: typeof all) => r.cases.map((c) => [c.id, c.status, c.outcome ?? null, c.metrics?.steps ?? null]).sort();
    expect(shape(merged)).toEqual(shape(all));
    expect(merged.summary).toEqual(all.summary);
  });

  it('a run that checks nothing removes the reports an earlier run left: they would pass for it (outside probe 22, F5)', async () => {
    const out = join(dir, 'nothing-checked');
    const reporter = ['json', 'junit', 'markdown', 'html'] as RunArgs['reporter'];
    expect(await run(args({ out, reporter, grep: '^scenario:inbox/steer' }), quiet)).toBe(EXIT.passed);
    expect(existsSync(join(out, 'junit.xml'))).toBe(true);
    const err: string[] = [];
    expect(await run(args({ out, reporter, grep: '^no-such-case$' }), { ...quiet, err: (t) => err.push(t) })).toBe(EXIT.failed);
    expect(['results.json', 'junit.xml', 'summary.md', 'report.html'].filter((name) => existsSync(join(out, name)))).toEqual([]);
    expect(err.join('')).toMatch(
      /^loopgate: nothing was checked: --grep \^no-such-case\$ matches none of the \d+ case\(s\)\nloopgate: the reports an earlier run left in \S+ were removed \(.*junit\.xml.*\): none of them is this run's\n$/,
    );
  });

  it('a shard left empty says so (it said "no scenario files under" a file that has some)', async () => {
    const scenario = join(ROOT, 'scenarios/bundled/outcomes/empty-reply-fails.yaml');
    const err: string[] = [];
    expect(await run(args({ paths: [scenario], shard: '500/500' }), { ...quiet, err: (t) => err.push(t) })).toBe(EXIT.failed);
    expect(err.join('')).toMatch(
      /^loopgate: nothing was checked: shard 500\/500 is empty: 2 cases over 500 shards \(its empty results are written for merge-reports\)\nwrote \S+results\.json\n$/,
    );
  });
});

describe('loopgate run: the baseline gate', () => {
  it('passes an unchanged run and catches a planted regression', async () => {
    const suite = join(dir, 'suite');
    cpSync(join(ROOT, 'scenarios/bundled/refunds'), suite, { recursive: true });
    const baseline = join(dir, 'baseline.json');
    expect(await run(args({ paths: [suite], baseline, updateBaseline: true }), quiet)).toBe(EXIT.passed);
    expect(await run(args({ paths: [suite], baseline }), quiet)).toBe(EXIT.passed);

    // Plant a regression: the approver now says no, so the refund scenario fails.
    const file = join(suite, 'approved-refund-runs-once.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('answers: [approve]', 'answers: [deny]'));
    const lines: string[] = [];
    const code = await run(args({ paths: [suite], baseline, reporter: ['json', 'console'] }), { ...quiet, out: (t) => lines.push(t) });
    expect(code).toBe(EXIT.failed);
    const results = await readResultsFile(join(dir, 'out/results.json'));
    expect(results.regressions?.map((r) => [r.kind, r.id])).toContainEqual(['status', expect.stringContaining('approved-refund-runs-once')]);
  });
});

describe('loopgate run: a baseline and a run of part of the suite', () => {
  it('judges only the cases the paths and --host select, and --update-baseline keeps the others', async () => {
    const suite = join(dir, 'partial');
    cpSync(join(ROOT, 'scenarios/bundled/refunds'), join(suite, 'refunds'), { recursive: true });
    cpSync(join(ROOT, 'scenarios/bundled/inbox'), join(suite, 'inbox'), { recursive: true });
    const config = join(suite, 'loopgate.config.ts');
    writeFileSync(
      config,
      `import { supportAgent } from ${JSON.stringify(join(ROOT, 'scenarios/example-agent/agent.ts'))};\nexport default { agents: { support: supportAgent }, scenarios: ['.'] };\n`,
    );
    const baseline = join(dir, 'partial-baseline.json');
    const ids = () => Object.keys(JSON.parse(readFileSync(baseline, 'utf8')).cases as object).sort();
    expect(await run(args({ config, baseline, updateBaseline: true }), quiet)).toBe(EXIT.passed);
    const all = ids();
    expect(all.filter((id) => id.startsWith('scenario:inbox/')).length).toBeGreaterThan(0);

    // One folder, one host: no case of the others is "missing".
    const results = async () => (await readResultsFile(join(dir, 'out/results.json'))).regressions ?? [];
    expect(await run(args({ config, baseline, paths: [join(suite, 'refunds')] }), quiet)).toBe(EXIT.passed);
    expect(await results()).toEqual([]);
    expect(await run(args({ config, baseline, host: 'production' }), quiet)).toBe(EXIT.passed);
    expect(await results()).toEqual([]);

    // A selected case that is gone is still missing.
    rmSync(join(suite, 'refunds/order-status-lookup.yaml'));
    expect(await run(args({ config, baseline, paths: [join(suite, 'refunds')] }), quiet)).toBe(EXIT.failed);
    expect((await results()).map((r) => [r.kind, r.id])).toEqual([
      ['missing', 'scenario:refunds/order-status-lookup'],
      ['missing', 'scenario:refunds/order-status-lookup@host'],
    ]);

    // Updating from one folder rewrites its cases (the gone one leaves) and keeps the rest.
    expect(await run(args({ config, baseline, updateBaseline: true, paths: [join(suite, 'refunds')] }), quiet)).toBe(EXIT.passed);
    expect(ids()).toEqual(all.filter((id) => !id.startsWith('scenario:refunds/order-status-lookup')));
  });
});

describe('loopgate run --live', () => {
  const live = (ci: boolean) => {
    const env = { ...process.env };
    delete env.ANTHROPIC_API_KEY;
    delete env.CI;
    return spawnSync(
      process.execPath,
      [join(ROOT, 'bin/loopgate.js'), 'run', '--live', '--provider', 'anthropic', '--reporter', 'console', '--out', join(dir, 'live')],
      { cwd: dir, encoding: 'utf8', env: { ...env, ...(ci ? { CI: 'true' } : {}) } },
    );
  };

  it('without the API key, outside CI: every live scenario is skipped with a line saying why, and nothing checked is a failure', () => {
    const result = live(false);
    expect(result.stdout + result.stderr).toMatch(/ANTHROPIC_API_KEY is not set, so this live scenario was not run against anthropic/);
    expect(result.stderr).toMatch(/nothing was checked: all 1 case\(s\) were skipped/);
    expect(result.status).toBe(EXIT.failed);
  });

  it('without the API key, under CI: exit 2 naming the variable, nothing run', () => {
    const result = live(true);
    expect(result.status).toBe(EXIT.usage);
    expect(result.stderr).toMatch(/--live --provider anthropic: ANTHROPIC_API_KEY is not set/);
  });
});

// Outside probe 56, MED-4: a team on PostgreSQL ran the bundled suite without LOOPGATE_POSTGRES_URL; the store's case
// was skipped, the run passed, and a lock bug with it. --require makes such a case fail the run when it cannot run.
describe('loopgate run --require', () => {
  const withoutServer = async <T>(body: () => Promise<T>): Promise<T> => {
    const saved = [process.env.LOOPGATE_POSTGRES_URL, process.env.LOOPGATE_TEST_POSTGRES_URL];
    delete process.env.LOOPGATE_POSTGRES_URL;
    delete process.env.LOOPGATE_TEST_POSTGRES_URL;
    try {
      return await body();
    } finally {
      if (saved[0] !== undefined) process.env.LOOPGATE_POSTGRES_URL = saved[0];
      if (saved[1] !== undefined) process.env.LOOPGATE_TEST_POSTGRES_URL = saved[1];
    }
  };

  it('a required case the run skips fails it, saying which pattern required it and why it was skipped', async () => {
    const out = join(dir, 'required');
    const code = await withoutServer(() =>
      run(args({ out, grep: 'contract:store/(postgres/store-contract|memory/starts-empty)', require: ['contract:store/postgres'] }), quiet),
    );
    expect(code).toBe(EXIT.failed);
    const results = await readResultsFile(join(out, 'results.json'));
    expect(results.summary).toMatchObject({ total: 2, passed: 1, failed: 1, skipped: 0 });
    const required = results.cases.find((c) => c.id === 'contract:store/postgres/store-contract')!;
    expect(required.status).toBe('failed');
    expect(required.failure).toBe(
      'required: skipped, but --require "contract:store/postgres" requires it: no PostgreSQL server named: set LOOPGATE_POSTGRES_URL to a database loopgate may create schemas in',
    );
  });

  it('without --require the same run passes, the case skipped', async () => {
    const out = join(dir, 'not-required');
    const code = await withoutServer(() => run(args({ out, grep: 'contract:store/(postgres/store-contract|memory/starts-empty)' }), quiet));
    expect(code).toBe(EXIT.passed);
    expect((await readResultsFile(join(out, 'results.json'))).summary).toMatchObject({ passed: 1, skipped: 1 });
  });

  it('a pattern that requires none of the selected cases, or is no regular expression, is a usage error: nothing run or written', async () => {
    const out = join(dir, 'require-typo');
    const typo = run(args({ out, grep: 'contract:store/memory/starts-empty', require: ['contract:store/postgress'] }), quiet);
    await expect(typo).rejects.toThrow('--require "contract:store/postgress": matches none of the 1 case(s) this run selects (by id or title)');
    // Refused before anything is loaded: with a --grep that matches nothing it is still exit 2, not "nothing was checked".
    await expect(run(args({ out, grep: 'matches-no-case-at-all', require: ['('] }), quiet)).rejects.toThrow(/--require "\(": not a regular expression/);
    expect(existsSync(out)).toBe(false);
  });

  it('is refused with --update-verdicts: a skip it made a failure is not the loop’s to pin', async () => {
    const out = join(dir, 'require-verdicts');
    await expect(run(args({ out, loop: 'ai-sdk', updateVerdicts: true, require: ['contract:store/postgres'] }), quiet)).rejects.toThrow(
      /--update-verdicts records what the loop did: drop --require/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('takes one pattern per --require: paths after it stay paths', () => {
    const scenarios = join(dir, 'one-scenario');
    cpSync(join(ROOT, 'scenarios/bundled/refunds/order-status-lookup.yaml'), join(scenarios, 'order-status-lookup.yaml'), { recursive: true });
    const result = cli(['run', '--require', 'order-status', scenarios, '--reporter', 'console']);
    expect(result.stderr).not.toMatch(/--require/);
    expect(result.status).toBe(EXIT.passed);
  });
});
