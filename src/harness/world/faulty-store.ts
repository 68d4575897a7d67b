/**
 * The case's store: in memory, with the write failures the scenario scripts
 * (`store.failAppends`: which batch appends, 1-based, fail). It counts every
 * batch the loop asks it to append and which of them failed.
 */
import { MemoryEventStore, type MemoryStoreFaults } from '../../stores/memory-store.ts';
import type { Scenario } from '../scenario/schema.ts';
import type { FaultLog } from './fault-log.ts';

export interface StoreWrites {
  readonly attempts: number;
  /** Which attempts (1-based) failed. */
  readonly failed: readonly number[];
}

export interface FaultyStore {
  readonly store: MemoryEventStore;
  readonly writes: () => StoreWrites;
}

export function faultyStore(spec: Scenario['store'], faults: FaultLog, make?: (hooks: MemoryStoreFaults) => MemoryEventStore): FaultyStore {
  let attempts = 0;
  const failed: number[] = [];
  const failAppends = new Set(spec?.failAppends ?? []);
  const hooks: MemoryStoreFaults = {
    beforeAppend: () => {
      attempts++;
      if (!failAppends.has(attempts)) return;
      faults.record(`store append ${attempts} fails`);
      failed.push(attempts);
      throw new Error(`injected store failure on append ${attempts}`);
    },
  };
  const store = make ? make(hooks) : new MemoryEventStore({ faults: hooks });
  return { store, writes: () => ({ attempts, failed: [...failed] }) };
}
