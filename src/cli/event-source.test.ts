/**
 * `loopgate replay` on a PostgreSQL URL, as users call it: a bad URL or an
 * unreachable server exits 2 with one line naming the target (password masked),
 * never hangs; a real store replays like a SQLite file.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { reply } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { defaultHostConfig } from '../host/config.ts';
import { AgentHost } from '../host/host.ts';
import { PostgresEventStore } from '../stores/postgres-store.ts';
import { describeWithPostgres, dropSchemas, freshSchemaName } from '../stores/postgres-store-testing.ts';
import { EXIT } from './exit-codes.ts';

const ROOT = resolve(import.meta.dirname, '../..');
/** Far above any connect timeout used here: reaching it means the command hung. */
const HANG_MS = 30_000;

interface Result {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly hung: boolean;
}

function loopgate(args: string[], env: Record<string, string> = {}): Promise<Result> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/loopgate.js'), ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, HANG_MS);
    child.on('close', (status) => {
      clearTimeout(timer);
      done({ status, stdout, stderr, hung });
    });
  });
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return (server.address() as { port: number }).port;
}

describe('loopgate replay <postgres URL>: connection failures exit 2, naming the target', () => {
  const servers: Server[] = [];
  afterAll(() => servers.forEach((s) => s.close()));

  it('a server that refuses the connection', async () => {
    const probe = createServer();
    const port = await listen(probe);
    await new Promise<void>((closed) => probe.close(() => closed()));
    const result = await loopgate(['replay', `postgres://loopgate:s3cret-pw@127.0.0.1:${port}/agents`]);
    expect(result.hung).toBe(false);
    expect(result.status).toBe(EXIT.usage);
    expect(result.stderr).toBe(
      `loopgate: postgres://loopgate:****@127.0.0.1:${port}/agents: connection refused (is a PostgreSQL server running and listening there?)\n`,
    );
    expect(result.stdout + result.stderr).not.toContain('s3cret-pw');
  });

  it('a server that never answers: gives up after the connect timeout', async () => {
    const silent = createServer(() => undefined);
    servers.push(silent);
    const port = await listen(silent);
    const result = await loopgate(['replay', `postgresql://ops:s3cret-pw@127.0.0.1:${port}/agents?connect_timeout=1`]);
    expect(result.hung).toBe(false);
    expect(result.status).toBe(EXIT.usage);
    expect(result.stderr).toBe(`loopgate: postgresql://ops:****@127.0.0.1:${port}/agents?connect_timeout=1: no answer within 1000 ms (connect timeout)\n`);
  });

  it('a malformed URL', async () => {
    const result = await loopgate(['replay', 'postgres://ops:s3cret-pw@db.internal:not-a-port/agents']);
    expect(result.status).toBe(EXIT.usage);
    expect(result.stderr).toBe(
      'loopgate: postgres://ops:****@db.internal:not-a-port/agents: not a valid URL (expected postgres://user:****@host:5432/database, the password in place of ****)\n',
    );
  });
});

describeWithPostgres('loopgate replay <postgres URL> with a server', (url) => {
  const schema = freshSchemaName('replay');
  const empty = freshSchemaName('replay_empty');
  afterAll(() => dropSchemas(url, [schema, empty]));
  const withSchema = (name: string) => {
    const target = new URL(url);
    target.searchParams.set('schema', name);
    return target.toString();
  };

  it('replays a conversation a host wrote to PostgreSQL', async () => {
    const store = await PostgresEventStore.open(url, { schema });
    const host = new AgentHost({ config: defaultHostConfig(), store, model: new ScriptedModelClient([reply('Hello from the shared store.')]) });
    expect((await host.handle('conv-pg', 'Hi there')).reply).toBe('Hello from the shared store.');
    await host.close();

    const result = await loopgate(['replay', withSchema(schema)]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(EXIT.passed);
    expect(result.stdout).toMatch(/^conversation conv-pg: \d+ events/);
    expect(result.stdout).toContain('Hi there');
    expect(result.stdout).toContain('Hello from the shared store.');
  });

  it('a schema without loopgate tables: exit 2, and nothing is created there', async () => {
    const result = await loopgate(['replay', withSchema(empty)]);
    expect(result.status).toBe(EXIT.usage);
    expect(result.stderr).toMatch(new RegExp(`schema "${empty}" holds no loopgate event tables`));
    if (new URL(url).password !== '') expect(result.stderr).not.toContain(`:${new URL(url).password}@`);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const found = await client.query('SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = $1', [empty]);
    await client.end();
    expect(found.rows[0].n).toBe(0);
  });
});
