/**
 * Writing a log's new events to its store. Flushes run one at a time, so the
 * write-ahead records of parallel tools never race each other into a seq
 * conflict; each writes whatever is unflushed when its turn comes. A flush asked
 * for while none is running starts at once (the store's append is called before
 * this returns); one asked for meanwhile waits for the one before it.
 */
import { toRecord, WRITTEN, type AnyEvent, type EventLog, type EventRecord } from '../kernel/index.ts';
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
  /** The last write asked for, while any write is still running (undefined when idle). */
  let tail: Promise<void> | undefined;
  let running = 0;
  let failed: Error | undefined;
  const done = () => {
    if (--running === 0) tail = undefined;
  };
  // One write: whatever is unflushed when its turn comes. Never throws; its promise rejects on failure.
  const write = (): Promise<void> => {
    let batch: readonly AnyEvent[];
    let appended: Promise<void>;
    try {
      if (failed) throw new Error(`an earlier write failed (${failed.message}); nothing more is written until the conversation is reopened`);
      options.guard?.();
      batch = log.unflushed();
      if (batch.length === 0) {
        done();
        return WRITTEN;
      }
      appended = store.append(conversationId, asRecords(batch));
    } catch (error) {
      done();
      return Promise.reject(error);
    }
    const upTo = log.flushedUpTo + batch.length;
    // A store that stored the batch before returning says so with `WRITTEN`: the write is over now.
    if (appended === WRITTEN) {
      done();
      log.markFlushed(upTo);
      return WRITTEN;
    }
    return Promise.resolve(appended).then(
      () => {
        done();
        log.markFlushed(upTo);
      },
      (error: unknown) => {
        done();
        if (options.stopAfterFailure) failed = error instanceof Error ? error : new Error(String(error));
        throw error;
      },
    );
  };
  return () => {
    running++;
    // Idle: the write starts now. Otherwise it waits for the one before it, whatever that one's fate.
    const next = tail === undefined ? write() : tail.then(write, write);
    // A write already over (done at once, or refused at once) leaves the flush idle.
    if (running > 0) tail = next;
    return next;
  };
}

/**
 * The batch as store records. A log event is one already (frozen, with the
 * record's fields); only an opaque event (kept for a newer writer) carries a
 * field a record has not, and then the batch is rewritten as records.
 */
function asRecords(batch: readonly AnyEvent[]): readonly EventRecord[] {
  for (let i = 0; i < batch.length; i++) if (batch[i]!.opaque) return batch.map(toRecord);
  return batch;
}
