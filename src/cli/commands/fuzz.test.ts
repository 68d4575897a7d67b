/**
 * `loopgate fuzz` as users and CI call it: bad flags exit 2 naming the flag; a
 * clean run exits 0 and writes a fuzz report; a violation exits 1, writes the
 * shrunk counterexample as a scenario file and names it; --path replays it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { outcomeFollowsTable } from '../../harness/invariants/outcome-follows-table.ts';
import { reproduce } from '../../fuzz/reproduce.ts';
import { parseScenario } from '../../harness/scenario/load.ts';
import { readResultsFile } from '../../report/json.ts';
import { BROKEN_VARIANTS } from '../../../test/fuzz/broken-variants.ts';
import { bundledFuzzOptions } from '../../../test/support/bundled.ts';
import { INVARIANTS } from '../../harness/invariants/index.ts';
import { EXIT } from '../exit-codes.ts';
import { UsageError } from '../usage-error.ts';
import { fuzz, progressLine, type FuzzArgs } from './fuzz.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const dir = mkdtempSync(join(tmpdir(), 'loopgate-fuzz-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function collect() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t), tty: false }, out, err };
}
const args = (over: Partial<FuzzArgs>): FuzzArgs => ({ reporter: ['json'], out: join(dir, 'out'), ...over });

describe('loopgate fuzz: bad input exits 2 with a clear message', () => {
  it('--runs 0 and a bad --seed, through the real command line', () => {
    for (const [argv, message] of [
      [['fuzz', '--runs', '0'], /--runs 0: expected an integer from 1 to 10000000/],
      [['fuzz', '--seed', 'banana'], /--seed "banana": expected an integer from 0 to 4294967295/],
    ] as const) {
      const result = spawnSync(process.execPath, [join(ROOT, 'bin/loopgate.js'), ...argv], { cwd: dir, encoding: 'utf8' });
      expect(result.status, result.stderr).toBe(EXIT.usage);
      expect(result.stderr).toMatch(message);
    }
  });

  it('every flag is checked before anything runs', async () => {
    const cases: [Partial<FuzzArgs>, RegExp][] = [
      [{ runs: 0 }, /--runs 0: expected an integer from 1 to 10000000/],
      [{ runs: '-5' }, /--runs -5/],
      [{ runs: '2.5' }, /--runs 2\.5/],
      [{ seed: -1 }, /--seed -1: expected an integer from 0 to 4294967295/],
      [{ seed: '4294967296' }, /--seed 4294967296/],
      [{ seed: '12abc' }, /--seed "12abc"/],
      [{ time: 'soon' }, /--time soon: expected a duration such as 30s, 5m or 1h/],
      [{ time: '0s' }, /--time 0s/],
      [{ time: '99999999999h' }, /--time 99999999999h: at most 24h/],
      [{ time: '25h' }, /--time 25h: at most 24h/],
      [{ path: '3:1' }, /--path needs the --seed it was found with/],
      [{ path: 'x', seed: 1 }, /--path x: expected fast-check's path/],
      [{ invariant: ['no-such-invariant'] }, /--invariant no-such-invariant: no such invariant; known: invariant-12/],
      [
        { invariant: ['invariant-15-secret-never-leave'] },
        /--invariant invariant-15-secret-never-leave: no such invariant \(did you mean invariant-15-secrets-never-leave\?\); known: /,
      ],
      [
        { invariant: ['secrets-never-leave'] },
        /--invariant secrets-never-leave: no such invariant \(did you mean invariant-15-secrets-never-leave\?\); known: /,
      ],
      [{ reporter: ['pdf'] }, /unknown reporter "pdf"/],
    ];
    for (const [over, message] of cases) {
      const { io } = collect();
      await expect(fuzz(args(over), io), JSON.stringify(over)).rejects.toThrow(UsageError);
      await expect(fuzz(args(over), io)).rejects.toThrow(message);
    }
  });
});

describe('loopgate fuzz: runs', () => {
  it('exits 0 when every invariant holds, with a fuzz report and a progress line in runs per second', async () => {
    const out = join(dir, 'clean');
    const { io, err } = collect();
    // A seed whose 70 runs judge every invariant (seed 7's drew no approver question once the generators changed; seed
    // 8's no approval timeout once scripted cases began cutting streams mid-way, stop 58; seed 9's none once fallbacks
    // began failing first and calls being sent again, stop 71).
    const code = await fuzz(args({ runs: '70', seed: '11', out }), io);
    expect(code).toBe(EXIT.passed);
    const results = await readResultsFile(join(out, 'results.json'));
    expect(results.seed).toBe(11);
    // One case per invariant, and the fuzzer's own: it drew every family a run this long should hold.
    expect(results.summary.byKind.fuzz).toEqual({ total: INVARIANTS.length + 1, passed: INVARIANTS.length + 1, failed: 0, skipped: 0 });
    expect(results.cases.every((c) => c.kind === 'fuzz' && c.id.startsWith('fuzz:'))).toBe(true);
    expect(results.cases[0]!.checks[0]!.message).toMatch(/held over 70 run\(s\), \d+ turn\(s\) \(seed 11\)/);
    expect(err.join('')).toMatch(/fuzz: 70 runs, \d+ turns in [\d.]+ s \(\d+ runs\/s, \d+ turns\/s\), seed 11/);
  });

  it('an --invariant given twice is checked once (not "two invariants have the id")', async () => {
    const out = join(dir, 'twice');
    const { io } = collect();
    const code = await fuzz(args({ runs: '5', seed: '7', out, invariant: ['invariant-12-nothing-throws', 'invariant-12-nothing-throws'] }), io);
    expect(code).toBe(EXIT.passed);
    const results = await readResultsFile(join(out, 'results.json'));
    expect(results.cases.map((c) => c.id)).toEqual(['fuzz:invariant-12-nothing-throws', 'fuzz:generator-draws-every-fault']);
  });

  it('a replay that finds nothing says what it replayed, not only how many runs passed', async () => {
    const { io, err } = collect();
    const code = await fuzz(args({ runs: '3', seed: '7', path: '5', out: join(dir, 'replayed') }), io);
    expect(code).toBe(EXIT.passed);
    expect(err.join('')).toMatch(/replayed from --path 5: no violation in the 3 run\(s\) from there/);
  });

  // Outside probe 64, F13: "0 runs", every other case passed, exit 0 — a replay that replayed nothing.
  it('a replay of a path that names no case of the search is refused, not passed', async () => {
    const { io } = collect();
    await expect(fuzz(args({ runs: '3', seed: '7', path: '0:999999999', out: join(dir, 'replayed-nothing') }), io)).rejects.toThrow(
      /--path 0:999999999: names no case of seed 7's search \(0 runs replayed\)/,
    );
  });

  it('a replay of a path into a shrink tree is not judged on what it drew: its runs are shrink candidates (probe 32, F17)', async () => {
    const out = join(dir, 'replayed-shrink');
    const { io, err } = collect();
    const code = await fuzz(args({ seed: '7', path: '485:0', out }), io);
    expect(code, err.join('')).toBe(EXIT.passed);
    const results = await readResultsFile(join(out, 'results.json'));
    const drew = results.cases.find((c) => c.id === 'fuzz:generator-draws-every-fault')!;
    expect(drew).toMatchObject({ status: 'skipped' });
    expect(drew.skipReason).toMatch(/a replay of --path 485:0/);
  });

  it('--time alone stops generating when the time is up', async () => {
    const { io, err } = collect();
    const code = await fuzz(args({ time: '300ms', seed: 3, out: join(dir, 'timed') }), io);
    expect(code).toBe(EXIT.passed);
    expect(err.join('')).toMatch(/\(time limit reached\)/);
  });

  it('exits 1 on a violation: the shrunk counterexample is written as a scenario file, named, reported, and replayable with --path', async () => {
    const variant = BROKEN_VARIANTS.find((v) => v.name === 'refusal-as-reply')!;
    const out = join(dir, 'broken');
    const { io, err } = collect();
    // Seed 12: on seed 11 (since wire cases went from 8% to 20%) replies-come-from-the-model meets the variant first.
    const code = await fuzz(args({ runs: 2_000, seed: 12, out }), io, { host: variant.host });
    expect(code).toBe(EXIT.failed);
    const printed = err.join('');
    const file = /counterexample \(shrunk in \d+ step\(s\)\): (\S+)/.exec(printed)?.[1];
    expect(file, printed).toBeDefined();
    expect(existsSync(resolve(file!))).toBe(true);
    const scenario = parseScenario(readFileSync(resolve(file!), 'utf8'), file!);
    expect(scenario.provider.script).toEqual([{ refusal: 'I cannot help with that.' }]);
    expect(scenario.expect).toEqual({});

    const results = await readResultsFile(join(out, 'results.json'));
    const failed = results.cases.filter((c) => c.status === 'failed');
    expect(failed.map((c) => c.id)).toEqual(['fuzz:outcome-follows-table']);
    expect(failed[0]!.file).toBe(file);
    expect(failed[0]!.failure).toMatch(/provider answered refusal, but the loop recorded reply.*replay: loopgate fuzz --seed 12 --path \S+/);
    expect(failed[0]!.timeline?.length).toBeGreaterThan(0);
    expect(failed[0]!.checks.find((c) => c.name === 'counterexample reproduces with loopgate run')?.passed).toBe(true);

    // Through the same seam the file fails; in the real world it passes (the bug is the variant's).
    const withBug = await reproduce(resolve(file!), { host: { ...(await bundledFuzzOptions()).host, ...variant.host }, invariants: [outcomeFollowsTable] });
    expect(withBug.map((c) => c.name)).toContain('outcome-follows-table');
    const real = spawnSync(process.execPath, [join(ROOT, 'bin/loopgate.js'), 'run', resolve(file!), '--reporter', 'json', '--out', join(dir, 'real')], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(real.status, real.stderr).toBe(EXIT.passed);

    // --path replays straight to the counterexample.
    const path = /--path ([\d:]+)/.exec(failed[0]!.failure!)![1]!;
    const replay = collect();
    expect(await fuzz(args({ seed: 12, path, out: join(dir, 'replay') }), replay.io, { host: variant.host })).toBe(EXIT.failed);
    // The counterexample breaks both rules; the replay may name either (the refusal's text is also a reply no model gave).
    expect(replay.err.join('')).toMatch(
      /violation of (outcome-follows-table: request 1: the provider answered refusal|replies-come-from-the-model: turn 0 replied "I refused\.")/,
    );
  });

  it('formats progress with runs and turns per second, and says when it is shrinking', () => {
    expect(progressLine({ runs: 1200, turns: 3400, elapsedMs: 2000, runsPerSecond: 600, turnsPerSecond: 1700, shrinking: false, shrinks: 0 })).toBe(
      'fuzz: 1200 runs, 3400 turns in 2.0 s (600 runs/s, 1700 turns/s)',
    );
    expect(progressLine({ runs: 5, turns: 9, elapsedMs: 100, runsPerSecond: 50, turnsPerSecond: 90, shrinking: true, shrinks: 12 })).toMatch(
      /violation found, shrinking \(12 tries\)$/,
    );
  });
});
