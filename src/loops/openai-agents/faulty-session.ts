/**
 * A Session with store faults: the scenario's `store.failAppends` (1-based)
 * name which `addItems` calls throw — the peer's writes, counted as it makes
 * them (one per turn's persistence checkpoint, not loopgate's batches). Around
 * the peer's own `MemorySession`.
 */
import type { AgentInputItem, Session } from '@openai/agents';

export class SessionWriteFault extends Error {
  constructor(n: number) {
    super(`scenario: session write ${n} fails`);
    this.name = 'SessionWriteFault';
  }
}

export function faultySession(inner: Session, failAppends: readonly number[]): Session {
  let writes = 0;
  return {
    getSessionId: () => inner.getSessionId(),
    getItems: (limit?: number) => inner.getItems(limit),
    addItems: async (items: AgentInputItem[]) => {
      const n = ++writes;
      if (failAppends.includes(n)) throw new SessionWriteFault(n);
      await inner.addItems(items);
    },
    popItem: () => inner.popItem(),
    clearSession: () => inner.clearSession(),
  };
}
