/**
 * One host process of the many-hosts test: the production AgentHost on the
 * PostgreSQL store, the example agent's tools, and a scripted fake model, serving
 * messages over a tiny HTTP endpoint on loopback.
 *
 *   POST /messages {"conversationId": "...", "text": "..."}  →  {"host": "...", "envelope": {...}}
 *
 * Talks to the parent over IPC: sends {type: 'ready', port} once listening and
 * {type: 'hanging', token, conversationId} when its model is asked about the token in
 * MANY_HOSTS_HANG_ON (that call never returns: the parent kills this process mid-turn);
 * {type: 'shutdown'} from the parent closes the host and exits.
 *
 * The model: a message's first step calls `lookup_order`; once the result is in,
 * it replies `answer to <token> from <host>`, where <token> (`msg-…`) is taken from the
 * turn's user message. Small random latencies make the hosts' turns interleave.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { ModelClient, ModelRequest, ModelResult } from '../../src/kernel/model/client.ts';
import { call, reply, toolUse } from '../../providers/fake/results.ts';
import { SupportBackend } from '../../scenarios/example-agent/backend.ts';
import { supportTools } from '../../scenarios/example-agent/tools.ts';
import { defaultHostConfig } from '../../src/host/config.ts';
import { AgentHost } from '../../src/host/host.ts';
import { PostgresEventStore } from '../../src/stores/postgres-store.ts';

const url = required('LOOPGATE_TEST_POSTGRES_URL');
const schema = required('MANY_HOSTS_SCHEMA');
const hostName = required('MANY_HOSTS_NAME');
const hangToken = process.env.MANY_HOSTS_HANG_ON;

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`host-process: environment variable ${name} is not set`);
  return value;
}

function tell(message: Record<string, unknown>): void {
  process.send?.(message);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The latest user text block in the request: the message this turn answers. */
function tokenOf(request: ModelRequest): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i]!;
    if (message.role !== 'user') continue;
    for (let j = message.content.length - 1; j >= 0; j--) {
      const block = message.content[j]!;
      if (block.type === 'text') return /msg-[\w-]+/.exec(block.text)?.[0] ?? 'no-token';
    }
  }
  return 'no-token';
}

let calls = 0;
const model: ModelClient = {
  name: `fake:${hostName}`,
  async call(request: ModelRequest): Promise<ModelResult> {
    const last = request.messages[request.messages.length - 1];
    const token = tokenOf(request);
    const firstStep = last?.role === 'user' && last.content.some((b) => b.type === 'text');
    if (firstStep && hangToken !== undefined && token === hangToken) {
      tell({ type: 'hanging', token });
      await new Promise(() => undefined); // mid-turn, until the parent's SIGKILL
    }
    await sleep(Math.random() * 4);
    if (firstStep) return toolUse([call(`${hostName}-call-${calls++}`, 'lookup_order', { order_id: 'ORD-1002' })]);
    return reply(`answer to ${token} from ${hostName}`);
  },
};

const store = await PostgresEventStore.open(url, { schema, poolSize: 4, maxLockConnections: 12, applicationName: `loopgate-${hostName}` });
const host = new AgentHost({ config: defaultHostConfig(), store, model, tools: supportTools(new SupportBackend()) });

async function body(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

const server = createServer((request: IncomingMessage, response: ServerResponse) => {
  void (async () => {
    try {
      if (request.method !== 'POST' || request.url !== '/messages') {
        response.writeHead(404).end();
        return;
      }
      const { conversationId, text } = (await body(request)) as { conversationId: string; text: string };
      const envelope = await host.handle(conversationId, text);
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ host: hostName, envelope }));
    } catch (error) {
      response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ host: hostName, error: String(error) }));
    }
  })();
});

process.on('message', (message: { type?: string }) => {
  if (message?.type !== 'shutdown') return;
  void (async () => {
    server.close();
    await host.close();
    process.exit(0);
  })();
});

server.listen(0, '127.0.0.1', () => {
  tell({ type: 'ready', port: (server.address() as { port: number }).port });
});
