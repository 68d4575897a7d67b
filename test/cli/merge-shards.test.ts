/**
 * Shards merged end to end, as a CI matrix runs them: `loopgate run --shard i/n`
 * in separate jobs, then `loopgate merge-reports`. Shards of one selection merge
 * into the whole run's verdict; shards of two selections (one job with another
 * --grep, paths or --config) are refused, naming both (probe 19, F1: merged as a
 * passing run with half of each suite never run).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { loopgate } from '../support/cli.ts';

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'loopgate-merge-shards-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const shard = (grep: string, index: number, out: string) =>
  loopgate(['run', '--grep', grep, '--shard', `${index}/2`, '--seed', '3', '--reporter', 'json', '--out', out], dir);

describe('merge-reports over real shards', () => {
  it('merges shards of one selection, and refuses a shard of another selection naming both files', async () => {
    const runs = await Promise.all([shard('^table:', 1, 's1'), shard('^table:', 2, 's2'), shard('^table:tool_use', 2, 'other')]);
    for (const run of runs) expect(run.status, run.stderr).toBe(EXIT.passed);
    const suite = JSON.parse(readFileSync(join(dir, 's1', 'results.json'), 'utf8')).suite;
    expect(suite).toMatchObject({ config: 'the bundled suite', digest: expect.stringMatching(/^[0-9a-f]{16}$/) });

    const merged = await loopgate(['merge-reports', 's1', 's2', '--out', 'merged', '--reporter', 'json'], dir);
    expect(merged.status, merged.stderr).toBe(EXIT.passed);
    const whole = JSON.parse(readFileSync(join(dir, 'merged', 'results.json'), 'utf8'));
    expect(whole.summary.total).toBe(suite.cases);
    expect(whole.suite).toEqual(suite);

    const refused = await loopgate(['merge-reports', 's1', 'other', '--out', 'refused', '--reporter', 'json'], dir);
    expect(refused.status).toBe(EXIT.usage);
    expect(refused.stderr).toMatch(
      /^loopgate: suites differ: s1\/results\.json is shard 1\/2 of \d+ cases \(suite [0-9a-f]{8}…\), other\/results\.json is shard 2\/2 of \d+ cases \(suite [0-9a-f]{8}…\); shards of one run select the same cases \(same config, paths and --grep\)\n$/,
    );
    expect(() => readFileSync(join(dir, 'refused', 'results.json'))).toThrow(/ENOENT/);
  });
});

describe('merge-reports over more shards than cases', () => {
  it('an empty shard writes its (empty) results, exits 1 as the workflow tolerates, and the merge passes on the cases the others checked', async () => {
    const grep = '^table:tool_use';
    // Two at a time: six at once on a busy machine can pass the CLI helper's hang limit.
    const runs = [];
    for (const pair of [
      [1, 2],
      [3, 4],
      [5, 6],
    ])
      runs.push(
        ...(await Promise.all(
          pair.map((i) => loopgate(['run', '--grep', grep, '--shard', `${i}/6`, '--seed', '3', '--reporter', 'json', '--out', `many-${i}`], dir)),
        )),
      );
    const suite = JSON.parse(readFileSync(join(dir, 'many-1', 'results.json'), 'utf8')).suite as { cases: number };
    expect(suite.cases).toBeLessThan(6); // so at least one shard is empty
    const empty = runs.filter((r) => r.status === EXIT.failed);
    expect(empty.length).toBe(6 - suite.cases);
    for (const r of empty) expect(r.stderr).toMatch(/nothing was checked: shard \d\/6 is empty: \d cases? over 6 shards/);
    for (const [i, r] of runs.entries()) {
      expect(r.status === EXIT.passed || r.status === EXIT.failed, r.stderr).toBe(true);
      expect(JSON.parse(readFileSync(join(dir, `many-${i + 1}`, 'results.json'), 'utf8')).shard).toMatchObject({ index: i + 1, total: 6 });
    }
    const merged = await loopgate(
      ['merge-reports', ...[1, 2, 3, 4, 5, 6].map((i) => `many-${i}/results.json`), '--out', 'many-merged', '--reporter', 'json'],
      dir,
    );
    expect(merged.status, merged.stderr).toBe(EXIT.passed);
    expect(JSON.parse(readFileSync(join(dir, 'many-merged', 'results.json'), 'utf8')).summary.total).toBe(suite.cases);
  });
});

describe('merge-reports of shards whose case ids hold a secret', () => {
  it('merges them: the suite is counted by the ids as reported, redacted (review of stop 52: exit 2, "cut short or edited")', async () => {
    const hello = (secret?: string) =>
      `name: hello\n${secret ? `secrets: ['${secret}']\n` : ''}provider:\n  script:\n    - reply: Hi.\ninbox:\n  - say: Hello.\nexpect:\n  outcome: replied\n`;
    mkdirSync(join(dir, 'secret-ids'));
    writeFileSync(join(dir, 'secret-ids', 'pin-hunter2-pass.yaml'), hello('hunter2-pass'));
    writeFileSync(join(dir, 'secret-ids', 'plain.yaml'), hello());
    const runs = [];
    for (const i of [1, 2])
      runs.push(await loopgate(['run', 'secret-ids', '--host', 'loop', '--shard', `${i}/2`, '--reporter', 'json', '--out', `secret-${i}`], dir));
    for (const r of runs) expect(r.status, r.stderr).toBe(EXIT.passed);
    const ids = [1, 2].flatMap((i) => JSON.parse(readFileSync(join(dir, `secret-${i}`, 'results.json'), 'utf8')).cases.map((c: { id: string }) => c.id));
    expect(ids.join(' ')).not.toContain('hunter2-pass');
    const merged = await loopgate(['merge-reports', 'secret-1', 'secret-2', '--out', 'secret-merged', '--reporter', 'json'], dir);
    expect(merged.status, merged.stderr).toBe(EXIT.passed);
  });
});
