/**
 * Opens the EventStore a host config's `store` section names: memory, a SQLite
 * file, or a PostgreSQL database (URL from the environment variable `urlEnv`, or a
 * password-less `url`). Every failure is a `StoreError` naming the config key and
 * the store (a PostgreSQL URL with its password masked).
 */
import { dirname } from 'node:path';
import { ensureDirectory } from '../files/index.ts';
import { StoreError, type EventStore } from './event-store.ts';
import { MemoryEventStore } from './memory-store.ts';
import { PostgresEventStore } from './postgres-store.ts';
import type { StoreConfig } from './store-config.ts';
import { SqliteEventStore } from './sqlite-store.ts';

export type { StoreConfig };

export interface OpenStoreOptions {
  /** Where `urlEnv` is looked up. Default: `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export async function openStore(config: StoreConfig, options: OpenStoreOptions = {}): Promise<EventStore> {
  switch (config.kind) {
    case 'memory':
      return new MemoryEventStore();
    case 'sqlite': {
      // The default path (.loopgate/loopgate.db) sits in a folder that may not exist yet.
      try {
        ensureDirectory(dirname(config.path), 'store directory');
      } catch (error) {
        throw new StoreError(`store.path: sqlite:${config.path}: ${(error as Error).message}`, { cause: error });
      }
      return new SqliteEventStore(config.path);
    }
    case 'postgres': {
      const url = postgresUrl(config, options.env ?? process.env);
      return PostgresEventStore.open(url, {
        schema: config.schema,
        connectTimeoutMs: config.connectTimeoutMs,
        poolSize: config.poolSize,
        maxLockConnections: config.maxLockConnections,
      });
    }
    default: {
      const kind: unknown = (config as { kind?: unknown }).kind;
      throw new StoreError(`store.kind: unknown store kind ${JSON.stringify(kind)} (expected memory, sqlite or postgres)`);
    }
  }
}

function postgresUrl(config: Extract<StoreConfig, { kind: 'postgres' }>, env: Readonly<Record<string, string | undefined>>): string {
  if (config.urlEnv !== undefined) {
    const value = env[config.urlEnv];
    if (value === undefined || value.trim() === '') {
      throw new StoreError(
        `store.urlEnv: the environment variable ${config.urlEnv} is not set (it should hold the PostgreSQL URL, e.g. postgres://user:****@host:5432/database, the password in place of ****)`,
      );
    }
    return value.trim();
  }
  if (config.url === undefined) throw new StoreError('store: a postgres store needs url or urlEnv');
  return config.url;
}
