/**
 * The README's example HTTP route for the production host runs as written, and survives what clients do: a
 * message answered, a retry by its Idempotency-Key answered again (never run twice), no JSON, a bad id encoding,
 * a client that goes away mid-body, a 429 telling the client when to retry (outside probe 37, F9: the obvious route, with no guard around reading the
 * body, took the process down when a client dropped mid-body).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Server } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'loopgate-readme-route-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The README's route, as written, with a host to serve and the server handed back instead of port 8080. */
function routeModule(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf("import { createServer } from 'node:http';");
  const snippet = readme.slice(start, readme.indexOf('```', start));
  expect(snippet).toContain('.listen(8080);');
  return [
    `import { AgentHost, MemoryEventStore, ScriptedModelClient, defaultHostConfig, results } from ${JSON.stringify(join(ROOT, 'src/index.ts'))};`,
    // The third call is rate-limited with a retry-after past the loop's limit: the turn fails at once, 429.
    "const model = new ScriptedModelClient([results.reply('answer 1'), results.reply('answer 2'), results.transportError('rate_limited', { status: 429, retryAfterMs: 90_500 }), results.reply('answer 3')]);",
    "const host = new AgentHost({ config: defaultHostConfig(), store: new MemoryEventStore(), model, agent: { system: 'You answer.' } });",
    snippet
      .replace("from 'loopgate';", `from ${JSON.stringify(join(ROOT, 'src/index.ts'))};`)
      .replace('createServer(async', 'export const server = createServer(async')
      .replace('.listen(8080);', '.listen(0);'),
  ].join('\n');
}

describe("README's example route", () => {
  it('answers, retries safely, refuses what is not a message, and outlives a client that leaves mid-body', async () => {
    const file = join(dir, 'route.ts');
    writeFileSync(file, routeModule());
    const { server } = (await import(file)) as { server: Server };
    await new Promise((r) => server.once('listening', r));
    const port = (server.address() as { port: number }).port;
    const post = (path: string, body: string, headers: Record<string, string> = {}) =>
      fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', body, headers }).then(async (r) => ({ status: r.status, body: await r.text() }));
    try {
      const first = await post('/conversations/order-9/messages', JSON.stringify({ text: 'Where is it?' }), { 'idempotency-key': 'm-1' });
      expect(first.status).toBe(200);
      expect(JSON.parse(first.body).reply).toBe('answer 1');
      const retry = await post('/conversations/order-9/messages', JSON.stringify({ text: 'Where is it?' }), { 'idempotency-key': 'm-1' });
      expect(JSON.parse(retry.body).reply).toBe('answer 1');
      expect((await post('/conversations/order-9/messages', 'not json')).status).toBe(400);
      expect((await post('/conversations/order%E0%A4%A/messages', JSON.stringify({ text: 'hi' }))).status).toBe(400);
      expect((await post('/conversations/orders%2F9/messages', JSON.stringify({ text: 'hi' }))).status).toBe(400);
      // A client that promises a body and leaves halfway.
      await new Promise<void>((done) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write('POST /conversations/order-9/messages HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{"text":');
          setTimeout(() => {
            socket.destroy();
            done();
          }, 50);
        });
      });
      await new Promise((r) => setTimeout(r, 50));
      const after = await post('/conversations/order-9/messages', JSON.stringify({ text: 'Still there?' }));
      expect(after.status).toBe(200);
      expect(JSON.parse(after.body).reply).toBe('answer 2');
      // Rate-limited past the loop's limit: 429, and the client is told when to come back (91 s, rounded up).
      const limited = await fetch(`http://127.0.0.1:${port}/conversations/order-9/messages`, { method: 'POST', body: JSON.stringify({ text: 'And now?' }) });
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('91');
      expect(((await limited.json()) as { retryAfterSeconds?: number }).retryAfterSeconds).toBe(91);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
