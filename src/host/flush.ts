/**
 * Writing a log's new events to its store. Flushes run one at a time, so the
 * write-ahead records of parallel tools never race each other into a seq
 * conflict; each writes whatever is unflushed when its turn comes.
 */
import { toRecord, type EventLog } from '../kernel/index.ts';
import type { EventStore } from '../stores/event-store.ts';

export function serializedFlush(store: Pick<EventStore, 'append'>, conversationId: string, log: EventLog): () => Promise<void> {
  let chain: Promise<void> = Promise.resolve();
  return () => {
    const next = chain.then(async () => {
      const batch = log.unflushed();
      if (batch.length === 0) return;
      const upTo = log.flushedUpTo + batch.length;
      await store.append(conversationId, batch.map(toRecord));
      log.markFlushed(upTo);
    });
    chain = next.catch(() => undefined);
    return next;
  };
}
