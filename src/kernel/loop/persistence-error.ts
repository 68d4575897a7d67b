/** A store write failed: the turn stops with failed{persistence}. */
export class PersistenceError extends Error {
  constructor(cause: unknown) {
    super(`the event store refused a write: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = 'PersistenceError';
  }
}

/** Calls the host's persist, turning a failure into a PersistenceError. */
export async function persistOrThrow(persist: () => Promise<void>): Promise<void> {
  try {
    await persist();
  } catch (error) {
    throw new PersistenceError(error);
  }
}
