/**
 * The EventStore contract (src/stores/contract/cases.ts) on the stores loopgate
 * ships, as cases of `loopgate run`: `contract:store/<store>/<id>`.
 *
 * The production host keeps every conversation in one of these stores (SQLite by
 * default), and the scenarios' test host keeps them in memory; a store that
 * lost a batch's atomicity, sorted conversations wrong or let two lock holders
 * in would pass every scenario that never raced it. Each SQLite case works in a
 * directory of its own under the system's temporary directory, removed after it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeError } from '../kernel/loop/records.ts';
import type { CheckResult } from '../report/results.ts';
import { runStoreContractCase, STORE_CONTRACT, type StoreContractCase } from '../stores/contract/cases.ts';
import { StoreContractFailure } from '../stores/contract/expect.ts';
import type { EventStore } from '../stores/event-store.ts';
import { MemoryEventStore } from '../stores/memory-store.ts';
import { SqliteEventStore } from '../stores/sqlite-store.ts';
import { checksCase, type Case } from './cases.ts';

const FILE = 'src/stores/contract/cases.ts';

interface BundledStore {
  readonly name: string;
  /** Runs `body` with a factory of fresh, empty stores, cleaning up after. */
  withFactory(body: (factory: () => EventStore) => Promise<void>): Promise<void>;
}

const STORES: readonly BundledStore[] = [
  { name: 'memory', withFactory: (body) => body(() => new MemoryEventStore()) },
  {
    name: 'sqlite',
    async withFactory(body) {
      const dir = mkdtempSync(join(tmpdir(), 'loopgate-store-contract-'));
      let files = 0;
      try {
        await body(() => new SqliteEventStore(join(dir, `store-${files++}.db`)));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  },
];

async function check(store: BundledStore, c: StoreContractCase): Promise<CheckResult[]> {
  try {
    await store.withFactory((factory) => runStoreContractCase(c, factory));
    return [{ name: 'store contract', passed: true, message: c.title }];
  } catch (error) {
    if (error instanceof StoreContractFailure) {
      return [{ name: 'store contract', passed: false, message: error.message, expected: error.expected, actual: error.actual }];
    }
    return [{ name: 'store contract', passed: false, message: `the store threw: ${describeError(error)}` }];
  }
}

export function storeCases(): Case[] {
  return STORES.flatMap((store) =>
    STORE_CONTRACT.map((c) =>
      checksCase({ id: `contract:store/${store.name}/${c.id}`, title: `${store.name} store: ${c.title}`, file: FILE }, () => check(store, c)),
    ),
  );
}
