/**
 * A UI following the case's conversation while the case runs (the scenario's
 * `follow: live`): from the moment each production host starts, one GET of the
 * host's own event stream (src/host/sse.ts, `keepOpen`, as a dashboard that stays
 * on the conversation). When the process dies its stream drops; when the host is
 * started again the UI reconnects with `Last-Event-ID`, as a browser's
 * EventSource does. With several hosts started together it follows the first.
 *
 * Each message is kept as the client read it, with how many records the store
 * held for the conversation at the moment the host sent it: what the UI was shown
 * must be stored already (follow.ts: "only stored events are ever yielded"), or a
 * crash takes back what the user saw. `followers-show-only-stored` judges it.
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { eventsHandler, type FollowableHost } from '../../host/sse.ts';
import { parseSse, type SseMessage } from './follow-check.ts';

/** One message of a live stream, and what the store held when the host sent it. */
export interface LiveMessage extends SseMessage {
  /** Records the store held for the conversation when the host wrote this message. */
  readonly storedWhenSent: number;
  /** The virtual time the host wrote it. */
  readonly shownAt: number;
}

/** One connection of the live follower. */
export interface LiveStream {
  /** The process it was connected to (0 for the first). */
  readonly process: number;
  /** The `Last-Event-ID` it sent (a reconnect), if any. */
  readonly lastEventId?: string;
  /** The virtual time it connected, and the time it ended (undefined: open when the case ended). */
  readonly openedAt: number;
  endedAt?: number;
  status: number;
  readonly messages: LiveMessage[];
  /** The body when the answer was not a stream. */
  text?: string;
  /** Who ended it: the host (its `end` or `error`), the process's death, or the client at the end of the case. */
  endedBy?: 'host' | 'crash' | 'client';
}

export interface LiveFollowRecord {
  readonly conversation: string;
  readonly streams: readonly LiveStream[];
  /** Records the store held for the conversation when the case ended and the follower left. */
  readonly storedAtEnd: number;
  /** The virtual time each of those records was stored, by seq (undefined: a torn write left it). */
  readonly storedAt: readonly (number | undefined)[];
}

/** What the follower reads from the case's world. */
export interface FollowedWorld {
  readonly conversation: string;
  /** How many records the store holds for the conversation now. */
  stored(): number;
  /** The virtual time a record was stored by a write that succeeded whole. */
  storedAt(seq: number): number | undefined;
  /** The case's virtual time. */
  now(): number;
}

interface Open {
  readonly stream: LiveStream;
  readonly req: EventEmitter;
  readonly done: Promise<void>;
}

export class LiveFollower {
  readonly #world: FollowedWorld;
  readonly #streams: LiveStream[] = [];
  #open: Open | undefined;

  constructor(world: FollowedWorld) {
    this.#world = world;
  }

  #stored(): number {
    return this.#world.stored();
  }

  #now(): number {
    return this.#world.now();
  }

  /** The id of the last event received over every stream so far. */
  get #lastEventId(): string | undefined {
    for (let i = this.#streams.length - 1; i >= 0; i--) {
      const messages = this.#streams[i]!.messages;
      for (let j = messages.length - 1; j >= 0; j--) if (messages[j]!.id !== undefined) return messages[j]!.id;
    }
    return undefined;
  }

  /** The last seq received, or -1. */
  get lastSeq(): number {
    const id = this.#lastEventId;
    return id === undefined ? -1 : Number(id);
  }

  /** Is a stream open (not ended by the host)? */
  get connected(): boolean {
    return this.#open !== undefined && this.#open.stream.endedBy === undefined;
  }

  /** Connects to a process's host (reconnecting from the last event received, if any). */
  connect(host: FollowableHost, process: number): void {
    const lastEventId = this.#lastEventId;
    const stream: LiveStream = { process, ...(lastEventId !== undefined ? { lastEventId } : {}), openedAt: this.#now(), status: 200, messages: [] };
    this.#streams.push(stream);
    const req = Object.assign(new EventEmitter(), {
      method: 'GET',
      url: `/conversations/${encodeURIComponent(this.#world.conversation)}/events`,
      headers: lastEventId !== undefined ? { 'last-event-id': lastEventId } : {},
    });
    let body = '';
    const done = new Promise<void>((resolve) => {
      const res = Object.assign(new EventEmitter(), {
        setHeader: () => undefined,
        writeHead: (code: number) => {
          stream.status = code;
          return res;
        },
        write: (chunk: string) => {
          if (stream.status === 200) {
            const storedWhenSent = this.#stored();
            const shownAt = this.#now();
            for (const message of parseSse(chunk)) stream.messages.push({ ...message, storedWhenSent, shownAt });
          } else body += chunk;
          return true;
        },
        end: (chunk?: string) => {
          if (chunk !== undefined) {
            if (stream.status === 200)
              for (const message of parseSse(chunk)) stream.messages.push({ ...message, storedWhenSent: this.#stored(), shownAt: this.#now() });
            else body += chunk;
          }
          if (stream.status !== 200) stream.text = body;
          stream.endedBy ??= 'host';
          stream.endedAt ??= this.#now();
          res.emit('close');
          resolve();
        },
      });
      eventsHandler(host, { heartbeatMs: 0, keepOpen: true })(req as unknown as IncomingMessage, res as unknown as ServerResponse);
    });
    this.#open = { stream, req, done };
  }

  /** The connection drops: the process died (`crash`), or the UI leaves at the end of the case (`client`). */
  async drop(endedBy: 'crash' | 'client'): Promise<void> {
    const open = this.#open;
    if (!open) return;
    this.#open = undefined;
    open.stream.endedBy ??= endedBy;
    open.stream.endedAt ??= this.#now();
    open.req.emit('close');
    await open.done;
  }

  /**
   * The case's work is done: waits (a bounded number of event-loop turns, no
   * virtual time) for the stream to deliver what the store holds, then leaves.
   */
  async finish(): Promise<LiveFollowRecord> {
    for (let i = 0; i < 50 && this.connected && this.lastSeq < this.#stored() - 1; i++) await new Promise<void>((resolve) => setImmediate(resolve));
    const storedAtEnd = this.#stored();
    await this.drop('client');
    const storedAt = Array.from({ length: storedAtEnd }, (_, seq) => this.#world.storedAt(seq));
    return { conversation: this.#world.conversation, streams: this.#streams, storedAtEnd, storedAt };
  }
}
