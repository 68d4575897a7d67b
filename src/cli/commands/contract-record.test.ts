/**
 * `--record` then `--replay`, with no network: a local HTTP server stands in for
 * the providers' APIs (through the SDKs' base-URL variables) and answers in
 * each provider's real protocol. It also echoes the key back in a response
 * header and sets a cookie, so the test proves scrubbing, not just absence.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVALID_API_KEY, LIVE_CASES } from '../../../providers/contract-suite/live-cases.ts';
import { WIRE_KITS } from '../../../providers/wire-fakes/kits.ts';
import type { WirePlan } from '../../../providers/wire-fakes/plan.ts';
import { jsonPlan } from '../../../providers/wire-fakes/plan.ts';
import { servePlanOnNode } from '../../../providers/wire-fakes/serve.ts';
import type { WireTurn } from '../../../providers/wire-fakes/turn.ts';
import type { WireProvider } from '../../../providers/names.ts';
import { runContractCommand, type ContractArgs } from './contract.ts';

const ANTHROPIC_KEY = 'sk-ant-api03-LoopgateRecordTestSecret0123456789abcdef';
const OPENAI_KEY = 'sk-proj-LoopgateRecordTestSecret0123456789abcdef';

function providerOf(path: string): WireProvider {
  if (path.endsWith('/messages')) return 'anthropic';
  if (path.endsWith('/chat/completions')) return 'openai-chat';
  return 'openai-responses';
}

function presentedKey(req: IncomingMessage): string {
  const header = req.headers['x-api-key'] ?? req.headers['authorization'] ?? '';
  return String(header).replace(/^Bearer /, '');
}

/** What a sensible model would do with each live case's request. */
function answer(provider: WireProvider, body: Record<string, unknown>): WireTurn {
  const usage = { input: 20, output: 7 };
  const max = Number(body.max_tokens ?? body.max_completion_tokens ?? body.max_output_tokens);
  const items = (body.messages ?? body.input) as Record<string, unknown>[];
  const last = items.at(-1) ?? {};
  const lastIsToolResult =
    last.role === 'tool' ||
    last.type === 'function_call_output' ||
    (Array.isArray(last.content) && (last.content as { type?: string }[]).some((b) => b.type === 'tool_result'));
  if (max <= 16) return { blocks: [{ type: 'text', text: '1, 2, 3, 4, 5, 6,' }], stop: 'max_tokens', usage };
  if (lastIsToolResult) return { blocks: [{ type: 'text', text: 'It is 18°C and sunny in Paris.' }], stop: 'end', usage };
  if (Array.isArray(body.tools) && body.tools.length > 0) {
    const id = provider === 'anthropic' ? 'toolu_01StandIn' : 'call_StandIn';
    return { blocks: [{ type: 'tool_call', id, name: 'get_weather', args: '{"city":"Paris"}' }], stop: 'tool_use', usage };
  }
  return { blocks: [{ type: 'text', text: 'pong' }], stop: 'end', usage };
}

function standInPlan(req: IncomingMessage, body: Record<string, unknown>): WirePlan {
  const provider = providerOf(req.url ?? '');
  const kit = WIRE_KITS[provider];
  const key = presentedKey(req);
  const leaky = { 'x-echoed-key': key, 'set-cookie': `session=${key}; Path=/` };
  if (key === INVALID_API_KEY) {
    const error = kit.errorAnswer('auth');
    return jsonPlan(error.status, error.body, leaky);
  }
  return { kind: 'stream', frames: kit.streamFrames(answer(provider, body)), end: 'close', headers: leaky };
}

let server: Server;
let origin = '';
let dir = '';
const seenKeys = new Set<string>();

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      seenKeys.add(presentedKey(req));
      void servePlanOnNode(standInPlan(req, JSON.parse(text) as Record<string, unknown>), req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = await mkdtemp(join(tmpdir(), 'loopgate-recording-'));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function run(args: ContractArgs, env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runContractCommand(args, { out: (t) => out.push(t), err: (t) => err.push(t), env });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('loopgate contract --record / --replay', () => {
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
    expect(seenKeys).toContain(ANTHROPIC_KEY);
    expect(seenKeys).toContain(OPENAI_KEY);

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
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
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
});
