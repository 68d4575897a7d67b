/**
 * A local HTTP server standing in for the providers' APIs (through the SDKs'
 * base URLs), answering each live contract case in the provider's real
 * protocol — for recording tests without the network. Options make it answer
 * as the real APIs can: compressed (`content-encoding`), and echoing the key
 * back in forms a naive scrubber misses.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { INVALID_API_KEY } from '../../providers/contract-suite/live-cases.ts';
import type { WireProvider } from '../../providers/names.ts';
import { WIRE_KITS } from '../../providers/wire-fakes/kits.ts';
import type { WirePlan } from '../../providers/wire-fakes/plan.ts';
import { jsonPlan } from '../../providers/wire-fakes/plan.ts';
import { servePlanOnNode } from '../../providers/wire-fakes/serve.ts';
import type { WireTurn } from '../../providers/wire-fakes/turn.ts';

export type Encoding = 'gzip' | 'br' | 'deflate';

export interface StandInOptions {
  /** Compress every response body this way (and say so in content-encoding). */
  readonly encoding?: Encoding;
  /** Echo the presented key back in encoded forms: URL-encoded, JSON \u-escaped and base64. */
  readonly echoEncodedKey?: boolean;
}

export interface StandIn {
  readonly origin: string;
  /** Every key presented, so a test can show there was something to leak. */
  readonly seenKeys: ReadonlySet<string>;
  close(): Promise<void>;
}

export function providerOf(path: string): WireProvider {
  if (path.endsWith('/messages')) return 'anthropic';
  if (path.endsWith('/chat/completions')) return 'openai-chat';
  return 'openai-responses';
}

export function presentedKey(req: IncomingMessage): string {
  const header = req.headers['x-api-key'] ?? req.headers.authorization ?? '';
  return String(header).replace(/^Bearer /, '');
}

/** What a sensible model would do with each live case's request. */
export function answer(provider: WireProvider, body: Record<string, unknown>): WireTurn {
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

/** The plan for a request; the key is echoed in a header and a cookie (the scrubber must drop or redact both). */
export function standInPlan(req: IncomingMessage, body: Record<string, unknown>): WirePlan {
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

/** `\uXXXX` for every character: what a JSON encoder that escapes everything would write. */
export function jsonEscapedEverywhere(text: string): string {
  return [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
}

function compress(encoding: Encoding, bytes: Buffer): Buffer {
  return encoding === 'gzip' ? gzipSync(bytes) : encoding === 'br' ? brotliCompressSync(bytes) : deflateSync(bytes);
}

/** The plan's whole body, with the encoded echoes added where the client ignores them. */
function wholeBody(plan: WirePlan, key: string, echo: boolean): { status: number; headers: Record<string, string>; body: Buffer } {
  if (plan.kind === 'body') {
    let text = plan.body;
    if (echo) {
      const parsed = JSON.parse(text) as Record<string, unknown>;
      // JSON.stringify writes this one literally; the raw text below carries the \u form.
      text = JSON.stringify({ ...parsed, echo_url: encodeURIComponent(key) }).replace(/}$/, `,"echo_json":"${jsonEscapedEverywhere(key)}"}`);
    }
    return { status: plan.status, headers: { 'content-type': plan.contentType ?? 'application/json', ...plan.headers }, body: Buffer.from(text) };
  }
  if (plan.kind !== 'stream') throw new Error('the stand-in serves bodies and streams only');
  // SSE comments (lines starting with a colon) are ignored by every client.
  const comments = echo ? `: ${encodeURIComponent(key)}\n: "${jsonEscapedEverywhere(key)}"\n: Basic ${Buffer.from(`user:${key}`).toString('base64')}\n\n` : '';
  const text = comments + plan.frames.map((f) => f.text).join('');
  return { status: plan.status ?? 200, headers: { 'content-type': 'text/event-stream; charset=utf-8', ...plan.headers }, body: Buffer.from(text) };
}

export async function startStandIn(options: StandInOptions = {}): Promise<StandIn> {
  const seenKeys = new Set<string>();
  const server: Server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      const key = presentedKey(req);
      seenKeys.add(key);
      const plan = standInPlan(req, JSON.parse(text) as Record<string, unknown>);
      if (!options.encoding && !options.echoEncodedKey) return void servePlanOnNode(plan, req, res);
      const whole = wholeBody(plan, key, options.echoEncodedKey ?? false);
      const headers: Record<string, string> = { ...whole.headers };
      if (options.echoEncodedKey) headers['x-echoed-key-base64'] = Buffer.from(key).toString('base64');
      let body = whole.body;
      if (options.encoding) {
        body = compress(options.encoding, body);
        headers['content-encoding'] = options.encoding;
      }
      res.writeHead(whole.status, { ...headers, 'content-length': String(body.length) });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seenKeys,
    async close() {
      if (!server.listening) return;
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
