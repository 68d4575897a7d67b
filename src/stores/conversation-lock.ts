/**
 * The in-process conversation lock shared by the stores: one holder per
 * conversation, waiters granted strictly in arrival order (FIFO), a waiter can give
 * up through its AbortSignal, and releasing twice is harmless.
 *
 * It only orders turns inside one process. Across processes the SQLite store's
 * write transaction (BEGIN IMMEDIATE + the seq check) still refuses a second
 * writer's batch with `StoreConflictError`; a shared store (PostgreSQL) uses an
 * advisory lock instead.
 */
import { StoreError, StoreLockAbortedError, type Release } from './event-store.ts';

interface Waiter {
  readonly grant: () => void;
  readonly fail: (error: Error) => void;
}

interface Slot {
  /** Waiters in arrival order; the holder is not in the queue. */
  readonly queue: Waiter[];
}

export class ConversationLocks {
  /** A conversation has a slot exactly while someone holds its lock. */
  readonly #slots = new Map<string, Slot>();
  #closedReason: string | undefined;

  acquire(conversationId: string, signal?: AbortSignal): Promise<Release> {
    if (this.#closedReason !== undefined) return Promise.reject(new StoreError(this.#closedReason));
    if (signal?.aborted) return Promise.reject(new StoreLockAbortedError(conversationId));

    const slot = this.#slots.get(conversationId);
    if (slot === undefined) {
      this.#slots.set(conversationId, { queue: [] });
      return Promise.resolve(this.#releaser(conversationId));
    }

    return new Promise<Release>((resolve, reject) => {
      const onAbort = (): void => {
        const at = slot.queue.indexOf(waiter);
        // Already granted (index -1): the grant won; the holder must release.
        if (at === -1) return;
        slot.queue.splice(at, 1);
        reject(new StoreLockAbortedError(conversationId));
      };
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.#releaser(conversationId));
        },
        fail: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      slot.queue.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Whether anyone holds the conversation's lock (for tests and diagnostics). */
  isHeld(conversationId: string): boolean {
    return this.#slots.has(conversationId);
  }

  /** Fails every waiter and refuses new acquisitions (the store is closing). */
  close(reason: string): void {
    this.#closedReason = reason;
    for (const slot of this.#slots.values()) {
      for (const waiter of slot.queue.splice(0)) waiter.fail(new StoreError(reason));
    }
  }

  #releaser(conversationId: string): Release {
    let released = false;
    return () => {
      // Idempotent: a second call must not release the lock of the next holder.
      if (released) return Promise.resolve();
      released = true;
      const slot = this.#slots.get(conversationId);
      const next = slot?.queue.shift();
      if (next) next.grant();
      else this.#slots.delete(conversationId);
      return Promise.resolve();
    };
  }
}
