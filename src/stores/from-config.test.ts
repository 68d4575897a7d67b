import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, parseHostConfig } from '../host/config.ts';
import { StoreError } from './event-store.ts';
import { openStore } from './from-config.ts';
import { MemoryEventStore } from './memory-store.ts';
import { PostgresEventStore } from './postgres-store.ts';
import { describeWithPostgres, dropSchemas, freshSchemaName } from './postgres-store-testing.ts';
import { SqliteEventStore } from './sqlite-store.ts';
import { records } from './store-conformance.ts';

const dir = mkdtempSync(join(tmpdir(), 'loopgate-from-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const storeOf = (yaml: string) => parseHostConfig(yaml, 'loopgate.yaml').store;

describe('openStore', () => {
  it('opens a memory store', async () => {
    const store = await openStore(storeOf('store: { kind: memory }'));
    expect(store).toBeInstanceOf(MemoryEventStore);
    await store.close();
  });

  it('opens a SQLite store, creating its directory', async () => {
    const path = join(dir, 'nested', 'deeper', 'agent.db');
    const store = await openStore(storeOf(`store: { kind: sqlite, path: ${JSON.stringify(path)} }`));
    expect(store).toBeInstanceOf(SqliteEventStore);
    await store.append('c', records(0, 1));
    expect(store.describe).toBe(`sqlite:${path}`);
    await store.close();
  });

  it('names the environment variable when urlEnv is not set', async () => {
    const config = storeOf('store: { kind: postgres, urlEnv: LOOPGATE_NO_SUCH_URL }');
    await expect(openStore(config, { env: {} })).rejects.toThrow(StoreError);
    await expect(openStore(config, { env: {} })).rejects.toThrow(/store\.urlEnv: the environment variable LOOPGATE_NO_SUCH_URL is not set/);
  });

  it('fails fast with the masked target when the server is unreachable', async () => {
    const config = storeOf('store: { kind: postgres, urlEnv: PG_URL, connectTimeoutMs: 500 }');
    const error = await openStore(config, { env: { PG_URL: 'postgres://app:hunter2@127.0.0.1:1/agents' } }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^postgres:\/\/app:\*\*\*\*@127\.0\.0\.1:1\/agents: connection refused/);
    expect((error as Error).message).not.toContain('hunter2');
  });
});

describe('host config: the postgres store', () => {
  it('takes urlEnv, with defaults for the rest', () => {
    expect(storeOf('store: { kind: postgres, urlEnv: LOOPGATE_PG }')).toEqual({
      kind: 'postgres',
      urlEnv: 'LOOPGATE_PG',
      schema: 'public',
      connectTimeoutMs: 5_000,
      poolSize: 10,
      maxLockConnections: 50,
    });
  });

  it('takes a url without a password', () => {
    expect(storeOf('store: { kind: postgres, url: "postgres://app@db:5432/agents", schema: agents }')).toMatchObject({
      url: 'postgres://app@db:5432/agents',
      schema: 'agents',
    });
  });

  it('refuses a password in the config file, naming the line and key', () => {
    expect(() => storeOf('model: { provider: fake }\nstore:\n  kind: postgres\n  url: "postgres://app:hunter2@db/agents"\n')).toThrow(ConfigError);
    expect(() => storeOf('store:\n  kind: postgres\n  url: "postgres://app:hunter2@db/agents"\n')).toThrow(
      /loopgate\.yaml:3:\d+: store\.url: must not carry a password/,
    );
    expect(() => storeOf('store: { kind: postgres, url: "postgres://app@db/agents?password=x" }')).toThrow(/must not carry a password/);
  });

  it('needs exactly one of url and urlEnv', () => {
    expect(() => storeOf('store: { kind: postgres }')).toThrow(/give exactly one of url and urlEnv/);
    expect(() => storeOf('store: { kind: postgres, url: "postgres://db/a", urlEnv: PG }')).toThrow(/give exactly one of url and urlEnv/);
  });

  it('refuses a bad schema name and unknown keys', () => {
    expect(() => storeOf('store: { kind: postgres, urlEnv: PG, schema: "Bad-Name" }')).toThrow(/store\.schema/);
    expect(() => storeOf('store: { kind: postgres, urlEnv: PG, password: x }')).toThrow(/password/);
  });
});

describeWithPostgres('openStore with a PostgreSQL server', (url) => {
  const schema = freshSchemaName('from_config');
  afterAll(() => dropSchemas(url, [schema]));

  it('opens the store from the URL in the named environment variable', async () => {
    const store = await openStore(storeOf(`store: { kind: postgres, urlEnv: LOOPGATE_PG, schema: ${schema} }`), { env: { LOOPGATE_PG: url } });
    expect(store).toBeInstanceOf(PostgresEventStore);
    if (new URL(url).password !== '') expect(store.describe).toMatch(/^postgres(ql)?:\/\/[^:]*:\*\*\*\*@/);
    await store.append('c', records(0, 2));
    expect(await store.read('c')).toHaveLength(2);
    await store.close();
  });
});
