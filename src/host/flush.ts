/**
 * Writing a log's new events to its store. Flushes run one at a time, so the
 * write-ahead records of parallel tools never race each other into a seq
 * conflict; each writes whatever is unflushed when its turn comes.
 */
import { toRecord, type EventLog } from '../kernel/index.ts';
import type { EventStore } from '../stores/event-store.ts';

export interface FlushOptions {
  /** Runs before each write, in turn; throwing refuses the write (e.g. a halted host). */
  readonly guard?: () => void;
  /**
   * After a failed write, refuse every later one. The production host reopens such a
   * log from the store instead: nothing written after the failure could be trusted
   * to match what the loop reported (a turn that failed `persistence` must not be
   * stored as replied by a later flush).
   */
  readonly stopAfterFailure?: boolean;
}

export function serializedFlush(store: Pick<EventStore, 'append'>, conversationId: string, log: EventLog, options: FlushOptions = {}): () => Promise<void> {
  let chain: Promise<void> = Promise.resolve();
  let failed: Error | undefined;
  return () => {
    const next = chain.then(async () => {
      if (failed) throw new Error(`an earlier write failed (${failed.message}); nothing more is written until the conversation is reopened`);
      options.guard?.();
      const batch = log.unflushed();
      if (batch.length === 0) return;
      const upTo = log.flushedUpTo + batch.length;
      try {
        await store.append(conversationId, batch.map(toRecord));
      } catch (error) {
        if (options.stopAfterFailure) failed = error instanceof Error ? error : new Error(String(error));
        throw error;
      }
      log.markFlushed(upTo);
    });
    chain = next.catch(() => undefined);
    return next;
  };
}
