/**
 * The EventStore contract as a vitest suite every store must pass: call
 * `describeEventStoreContract` from the store's own test file with a factory
 * that returns a fresh, empty store. The cases are data (contract/cases.ts);
 * `loopgate run` runs the same ones on the bundled stores
 * (`contract:store/<store>/<id>`).
 */
import { describe, it } from 'vitest';
import type { EventStore } from './event-store.ts';
import { runStoreContractCase, STORE_CONTRACT, type StoreContractCase } from './contract/cases.ts';

export { records, sampleRecord, settle } from './contract/cases.ts';

export type EventStoreFactory = () => EventStore | Promise<EventStore>;

function describeCases(cases: readonly StoreContractCase[], factory: EventStoreFactory): void {
  const groups = new Map<string, StoreContractCase[]>();
  for (const c of cases) groups.set(c.group, [...(groups.get(c.group) ?? []), c]);
  for (const [group, inGroup] of groups) {
    describe(group, () => {
      for (const c of inGroup) it(c.title, () => runStoreContractCase(c, factory));
    });
  }
}

export function describeEventStoreContract(name: string, factory: EventStoreFactory): void {
  describe(`EventStore contract: ${name}`, () =>
    describeCases(
      STORE_CONTRACT.filter((c) => c.needs === undefined),
      factory,
    ));
}

/**
 * The snapshot part of the contract, for stores that keep snapshots
 * (`readSnapshot`, `readRangeSync`): a snapshot goes in with its batch or not at
 * all, the latest replaces the one before, and records read synchronously are
 * those `read` returns.
 */
export function describeSnapshotStoreContract(name: string, factory: EventStoreFactory): void {
  describe(`EventStore snapshot contract: ${name}`, () =>
    describeCases(
      STORE_CONTRACT.filter((c) => c.needs === 'snapshots'),
      factory,
    ));
}
