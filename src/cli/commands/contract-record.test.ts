/**
 * `--record` then `--replay`, with no network: a local HTTP server stands in for
 * the providers' APIs (through the SDKs' base-URL variables) and answers in
 * each provider's real protocol. It also echoes the key back in a response
 * header and sets a cookie, so the test proves scrubbing, not just absence.
 */
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVALID_API_KEY, LIVE_CASES } from '../../../providers/contract-suite/live-cases.ts';
import { type StandIn, startStandIn } from '../../../test/support/stand-in-api.ts';
import { runContractCommand, type ContractArgs } from './contract.ts';

const ANTHROPIC_KEY = 'sk-ant-api03-LoopgateRecordTestSecret0123456789abcdef';
const OPENAI_KEY = 'sk-proj-LoopgateRecordTestSecret0123456789abcdef';

let standIn: StandIn;
let origin = '';
let dir = '';

beforeAll(async () => {
  standIn = await startStandIn();
  origin = standIn.origin;
  dir = await mkdtemp(join(tmpdir(), 'loopgate-recording-'));
});

afterAll(() => standIn.close());

async function run(args: ContractArgs, env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runContractCommand(args, { out: (t) => out.push(t), err: (t) => err.push(t), env });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('loopgate contract --record / --replay', () => {
  it('with no key for any provider, --record checks nothing (exit 1) and writes nothing: not even the directory', async () => {
    const own = await mkdtemp(join(tmpdir(), 'loopgate-no-record-'));
    const recorded = await run({ record: join(own, 'not-made', 'recordings') }, {});
    expect(recorded.code).toBe(1);
    expect(recorded.err).toContain('nothing was checked');
    expect(await readdir(own)).toEqual([]);
    // The path is still checked: one that cannot be a directory is bad input, as before.
    await writeFile(join(own, 'a-file'), 'x');
    const bad = await run({ record: join(own, 'a-file', 'sub') }, {});
    expect(bad.code).toBe(2);
  });

  it('records the live cases with no API key or Authorization value, then replays them offline with the same results', async () => {
    const env = {
      ANTHROPIC_API_KEY: ANTHROPIC_KEY,
      ANTHROPIC_BASE_URL: origin,
      OPENAI_API_KEY: OPENAI_KEY,
      OPENAI_BASE_URL: `${origin}/v1`,
    };
    const recorded = await run({ record: dir }, env);
    expect(recorded.err).toBe('');
    expect(recorded.code).toBe(0);
    expect(recorded.out).toContain('fake: no live API; skipped its live cases');
    // The stand-in really saw the keys (so there was something to leak).
    expect(standIn.seenKeys).toContain(ANTHROPIC_KEY);
    expect(standIn.seenKeys).toContain(OPENAI_KEY);

    expect((await readdir(dir)).sort()).toEqual(['anthropic.recording.json', 'openai-chat.recording.json', 'openai-responses.recording.json']);
    for (const provider of ['anthropic', 'openai-chat', 'openai-responses']) {
      const text = await readFile(join(dir, `${provider}.recording.json`), 'utf8');
      expect(text).not.toContain(ANTHROPIC_KEY);
      expect(text).not.toContain(OPENAI_KEY);
      expect(text).not.toContain('LoopgateRecordTestSecret');
      expect(text).not.toMatch(/bearer/i);
      const recording = JSON.parse(text) as {
        cases: { id: string; status: string }[];
        exchanges: { status: number; rawHeaders?: Record<string, string>; reqheaders?: unknown }[];
      };
      expect(recording.cases.map((c) => [c.id, c.status])).toEqual(LIVE_CASES.map((c) => [c.id, 'pass']));
      expect(recording.exchanges).toHaveLength(LIVE_CASES.length);
      for (const exchange of recording.exchanges) {
        expect(exchange.reqheaders).toBeUndefined();
        const names = Object.keys(exchange.rawHeaders ?? {}).map((n) => n.toLowerCase());
        expect(names).not.toContain('authorization');
        expect(names).not.toContain('x-api-key');
        expect(names).not.toContain('set-cookie');
        // The auth case sent the deliberately invalid key, which is no secret.
        expect(exchange.rawHeaders?.['x-echoed-key']).toBe(exchange.status === 401 ? INVALID_API_KEY : '[REDACTED]');
      }
    }

    // Offline: the stand-in is gone, and no key is in the environment.
    await standIn.close();
    const replayed = await run({ replay: dir }, {});
    expect(replayed.err).toBe('');
    expect(replayed.code).toBe(0);
    for (const testCase of LIVE_CASES) {
      expect(replayed.out.split('\n').filter((l) => l.startsWith(`  PASS ${testCase.id} `))).toHaveLength(3);
    }
    expect(replayed.out).not.toContain('FAIL');
  });

  it('fails the replay when a result differs from the recorded one', async () => {
    const path = join(dir, 'openai-chat.recording.json');
    const recording = JSON.parse(await readFile(path, 'utf8')) as { cases: { id: string; result: { text?: string } }[] };
    recording.cases.find((c) => c.id === 'live_reply')!.result.text = 'something else';
    await writeFile(path, JSON.stringify(recording));
    const { code, out } = await run({ replay: dir, provider: 'openai-chat' }, {});
    expect(code).toBe(1);
    expect(out).toMatch(/FAIL live_reply — .*\n\s+replayed result differs from the recorded one/);
  });

  it('names the request no recorded exchange answers, not a network failure', async () => {
    const path = join(dir, 'anthropic.recording.json');
    const recording = JSON.parse(await readFile(path, 'utf8')) as { exchanges: { path: string }[] };
    recording.exchanges.splice(0, 1); // the first case's exchange, gone
    await writeFile(path, JSON.stringify(recording));
    const { code, out } = await run({ replay: dir, provider: 'anthropic' }, {});
    expect(code).toBe(1);
    expect(out).toMatch(/FAIL live_reply — .*\n\s+the recording holds no exchange for this request: POST http:\/\/127\.0\.0\.1:\d+\/v1\/messages/);
    expect(out).not.toContain('fetch failed');
  });

  it.each([
    ['a baseURL that is no http(s) URL', (r: Record<string, unknown>) => (r.baseURL = 'not a url'), /baseURL: expected an http\(s\) URL/],
    [
      'an exchange with status 9999',
      (r: Record<string, unknown>) => ((r.exchanges as { status: number }[])[0]!.status = 9999),
      /exchanges\.0\.status: expected an HTTP status \(100–599\)/,
    ],
    [
      'an exchange for another host than baseURL',
      (r: Record<string, unknown>) => ((r.exchanges as { scope: string }[])[0]!.scope = 'https://elsewhere.example:443'),
      /exchanges\.0\.scope: https:\/\/elsewhere\.example:443 is not the origin of baseURL/,
    ],
  ])('refuses a recording with %s (exit 2, naming the field)', async (_name, spoil, names) => {
    const path = join(dir, 'openai-responses.recording.json');
    const original = await readFile(path, 'utf8');
    const recording = JSON.parse(original) as Record<string, unknown>;
    spoil(recording);
    await writeFile(path, JSON.stringify(recording));
    try {
      const { code, err, out } = await run({ replay: dir, provider: 'openai-responses' }, {});
      expect(code).toBe(2);
      expect(err).toMatch(names);
      expect(out).not.toContain('PASS');
    } finally {
      await writeFile(path, original);
    }
  });
});
