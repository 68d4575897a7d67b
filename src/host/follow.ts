/**
 * Following a conversation (seed 000 §1, §3: the loop's events are replayable for
 * a UI that reconnects): its events from a seq as an async iterable — the stored
 * ones first, then each new one as soon as it is stored — ending when this host
 * has no more work in flight for the conversation (the turn, and any turn queued
 * behind it, has closed), when the caller stops, or when the host closes (a
 * follower kept open too: after what was stored).
 *
 * Only stored events are ever yielded. A seq, once yielded, names that event
 * forever: a client that reconnects from the last seq it saw (`Last-Event-ID`)
 * gets every later event exactly once, in order, with no gap — also when a write
 * failed and the host reopened the conversation from its store (events the store
 * never took were never yielded). While someone follows, the host stores what the
 * loop appends promptly, so streamed deltas arrive as they come, not at the end of
 * the step. Every event passes the host's redactor before it is yielded.
 *
 * Live events come from turns this host runs. A turn another host runs on a
 * shared store is seen when the follower (re)connects after it.
 */
import { InputError, redactDeep, type AnyEvent, type EventLog, type Redactor } from '../kernel/index.ts';
import type { FollowerListener } from './followers.ts';

export interface FollowOptions {
  /** The first seq wanted (after a reconnect: the last seq received + 1). Default 0. */
  readonly from?: number;
  /** Stops following (the iterable ends). */
  readonly signal?: AbortSignal;
  /** Keep following after the conversation's work here ends, until `signal` aborts. Default false. */
  readonly keepOpen?: boolean;
}

/** A bad `from` (not a seq, or past the end of the conversation): an `InputError`. */
export class FollowError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = 'FollowError';
  }
}

/** What the follower needs from its host. */
export interface FollowSource {
  /** Stored events with seq ≥ `from`, in order. */
  read(conversationId: string, from: number): Promise<readonly AnyEvent[]>;
  subscribe(conversationId: string, listener: FollowerListener): () => void;
  /** Does this host have work in flight for the conversation (a turn, or messages waiting for one)? */
  busy(conversationId: string): boolean;
  /** The host is closing: it will store nothing more, and every follower ends with what was stored (`keepOpen` too). */
  closing(): boolean;
  readonly redact: Redactor;
}

/**
 * Reads the stored events from `from` (refusing a `from` past the end), then
 * returns the iterable. Listening starts before the read, so nothing stored
 * between the read and the first live event is missed.
 */
export async function followConversation(source: FollowSource, conversationId: string, options: FollowOptions = {}): Promise<AsyncIterable<AnyEvent>> {
  const from = options.from ?? 0;
  if (!Number.isSafeInteger(from) || from < 0) throw new FollowError(`from must be a seq (a non-negative integer), got ${JSON.stringify(from)}`);
  let wake: (() => void) | undefined;
  let pending = false;
  let latest: EventLog | undefined;
  const listener: FollowerListener = (log) => {
    if (log) latest = log;
    pending = true;
    wake?.();
  };
  const unsubscribe = source.subscribe(conversationId, listener);
  let stored: readonly AnyEvent[];
  try {
    // One event before `from`, to tell "nothing new yet" from "no such seq".
    stored = await source.read(conversationId, Math.max(0, from - 1));
  } catch (error) {
    unsubscribe();
    throw error;
  }
  if (from > 0) {
    if (stored[0]?.seq !== from - 1) {
      unsubscribe();
      throw new FollowError(
        `from ${from}: conversation ${JSON.stringify(conversationId)} has ${stored.length === 0 ? 'fewer' : 'other'} events (seq ${from - 1} is not stored)`,
      );
    }
    stored = stored.slice(1);
  }
  const signal = options.signal;
  // Stopping lets go of the subscription even if the iterable is never iterated.
  const onAbort = () => {
    unsubscribe();
    wake?.();
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) onAbort();

  async function* events(): AsyncGenerator<AnyEvent> {
    try {
      let next = from;
      for (const event of stored) {
        if (signal?.aborted) return;
        yield redactDeep(event, source.redact) as AnyEvent;
        next = event.seq + 1;
      }
      for (;;) {
        if (signal?.aborted) return;
        // What the host stored since: from the log it wrote (no read), else from the store.
        pending = false;
        const log = latest;
        let fresh: readonly AnyEvent[];
        try {
          fresh = log && log.flushedUpTo >= next ? log.range(next, log.flushedUpTo) : await source.read(conversationId, next);
        } catch (error) {
          if (source.closing()) return; // the store closed with the host: nothing more will be stored
          throw error;
        }
        let yielded = 0;
        for (const event of fresh) {
          if (event.seq !== next) break; // only ever the next seq: no gap, no repeat
          if (signal?.aborted) return;
          yield redactDeep(event, source.redact) as AnyEvent;
          next++;
          yielded++;
        }
        if (pending || yielded > 0) continue;
        if ((!options.keepOpen || source.closing()) && !source.busy(conversationId)) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
          if (pending || signal?.aborted) resolve();
        });
        wake = undefined;
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      unsubscribe();
    }
  }
  return events();
}
