/**
 * Who follows which conversation, and telling them when there is something new:
 * after every successful write of a conversation's events (with the log written),
 * and when this host has no more work in flight for it (without one).
 */
import type { EventLog } from '../kernel/index.ts';

/** Told after a write (`log`: the log whose events were stored) or when the conversation's work here ended. */
export type FollowerListener = (log: EventLog | undefined) => void;

export class FollowerRegistry {
  readonly #listeners = new Map<string, Set<FollowerListener>>();

  /** Listens to one conversation. Returns the unsubscribe. */
  subscribe(conversationId: string, listener: FollowerListener): () => void {
    let set = this.#listeners.get(conversationId);
    if (!set) this.#listeners.set(conversationId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#listeners.get(conversationId) === set) this.#listeners.delete(conversationId);
    };
  }

  /** Is anyone following the conversation? */
  has(conversationId: string): boolean {
    return this.#listeners.has(conversationId);
  }

  /** Tells every follower of every conversation (the host is closing: each then ends). */
  notifyAll(): void {
    for (const conversationId of [...this.#listeners.keys()]) this.notify(conversationId);
  }

  notify(conversationId: string, log?: EventLog): void {
    const set = this.#listeners.get(conversationId);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(log);
      } catch {
        // A broken follower does not stop the others, nor the write that told it.
      }
    }
  }
}
