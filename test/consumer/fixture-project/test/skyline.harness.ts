/**
 * The contract harness of the skyline client (docs/own-provider.md): a fake
 * skyline gateway on node:http that answers each case's behaviour, or says why
 * it cannot. loopgate.own-client.config.ts names it, so scenarios put their
 * faults through the team's own client.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Behaviour, ContractHarness } from 'loopgate/vitest';
import { createSkylineClient } from '../src/skyline-client.js';

const KEY = 'skyline-test-key-5d0c41e9b7';

type Plan = { status: number; headers: Record<string, string>; body: string; cutAfter?: number } | { reset: true };

const STATUS: Record<string, number> = { rate_limited: 429, overloaded: 503, server_error: 500, auth: 401 };

/** The behaviour on skyline's wire, or why skyline cannot say it. */
function planFor(behaviour: Behaviour): Plan | string {
  const answer = (turn: Extract<Behaviour, { kind: 'turn' }>['turn']) => {
    if (turn.stop !== 'end' && turn.stop !== 'tool_use') return undefined;
    const blocks = turn.blocks.map((b) => (b.type === 'text' ? { type: 'text', text: b.text } : { type: 'call', id: b.id, name: b.name, args: b.args }));
    return JSON.stringify({ blocks, stop: turn.stop, usage: { input: turn.usage?.input ?? 0, output: turn.usage?.output ?? 0 } });
  };
  switch (behaviour.kind) {
    case 'turn': {
      const body = answer(behaviour.turn);
      return body === undefined ? `skyline has no stop reason ${JSON.stringify(behaviour.turn.stop)}` : { status: 200, headers: {}, body };
    }
    case 'http_error': {
      const status = behaviour.status ?? STATUS[behaviour.error];
      if (status === undefined) return `skyline has no ${behaviour.error} error`;
      const headers: Record<string, string> = behaviour.retryAfterSeconds !== undefined ? { 'retry-after': String(behaviour.retryAfterSeconds) } : {};
      return { status, headers, body: JSON.stringify({ error: behaviour.error }) };
    }
    case 'stream_fault': {
      // skyline answers whole: a connection dropping mid-answer is a body cut halfway.
      if (behaviour.fault.type !== 'reset') return `skyline does not stream: no ${behaviour.fault.type}`;
      const body = answer(behaviour.turn);
      return body === undefined ? 'skyline cannot cut that answer' : { status: 200, headers: {}, body, cutAfter: Math.floor(body.length / 2) };
    }
    case 'reset_before_response':
      return { reset: true };
    default:
      return `skyline's fake has no ${behaviour.kind}`;
  }
}

export function skylineHarness(): ContractHarness {
  const plans = new Map<string, Plan>();
  let server: Server | undefined;
  let base = '';
  return {
    name: 'skyline',
    async start() {
      server = createServer((req, res) => {
        const plan = plans.get(decodeURIComponent((req.url ?? '').split('/')[1] ?? ''));
        req.resume();
        req.on('end', () => {
          if (!plan || 'reset' in plan) return req.socket.destroy();
          const length = Buffer.byteLength(plan.body);
          res.writeHead(plan.status, { 'content-type': 'application/json', 'content-length': String(length), ...plan.headers });
          if (plan.cutAfter === undefined) return res.end(plan.body);
          res.write(plan.body.slice(0, plan.cutAfter), () => req.socket.destroy());
        });
      });
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    async stop() {
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      server = undefined;
    },
    clientFor({ caseId, behaviour }) {
      const plan = planFor(behaviour);
      if (typeof plan === 'string') return { unsupported: plan };
      plans.set(caseId, plan);
      return { client: createSkylineClient({ baseURL: `${base}/${encodeURIComponent(caseId)}`, apiKey: KEY }), secrets: [KEY] };
    },
  };
}
