import type { Durability } from './types.ts';

/** A store write failed: the turn stops with failed{persistence}. */
export class PersistenceError extends Error {
  constructor(cause: unknown) {
    super(`the event store refused a write: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = 'PersistenceError';
  }
}

/** Calls the host's persist, turning a failure into a PersistenceError. */
export async function persistOrThrow(persist: (durability?: Durability) => Promise<void>, durability: Durability): Promise<void> {
  try {
    await persist(durability);
  } catch (error) {
    throw new PersistenceError(error);
  }
}
