/**
 * A UI following the case's conversation through the production host's own
 * server-sent events handler (src/host/sse.ts), once the case's work is done:
 * `GET /conversations/{id}/events` from the first event, then a reconnect with
 * `Last-Event-ID` set to a seq in the middle of what it got, as a browser's
 * EventSource does after a drop. An EventSource reconnects to the URL it was
 * opened with, query and all: the reconnect's URL still says `?from=0`, and the
 * header must win over it (sse.ts), or the UI is shown the conversation again
 * from the start. Each stream's messages are kept as the client parsed them;
 * `followers-replay-the-log` holds them to the store.
 *
 * Only after the case: a follower attached while turns run makes the host store
 * promptly (follow.ts), which would change the writes the case's store faults
 * count. The requests and responses are Node's `http` shapes, in memory.
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { eventsHandler, type FollowableHost } from '../../host/sse.ts';

/** One SSE message as a client reads it. */
export interface SseMessage {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
}

/** One GET of the events stream, as the client saw it. */
export interface FollowStream {
  /** The request's `Last-Event-ID` (a reconnect), if it sent one. */
  readonly lastEventId?: string;
  readonly status: number;
  /** Every message, in order (the `retry:` preamble left out). */
  readonly messages: readonly SseMessage[];
  /** The body when the answer was not a stream. */
  readonly text?: string;
}

/** An event as the store held it when the follower connected. */
export interface StoredEvent {
  readonly seq: number;
  readonly type: string;
  readonly payload: unknown;
}

export interface FollowRecord {
  readonly conversation: string;
  /** What the store held for the conversation, read just before following. */
  readonly stored: readonly StoredEvent[];
  /** From the first event. */
  readonly full: FollowStream;
  /** The reconnect from the middle of `full` (none when `full` carried fewer than two events). */
  readonly resumed?: FollowStream;
}

/** Follows the conversation from the start, then reconnects from the middle of what came. */
export async function followAfterTheCase(host: FollowableHost, conversation: string, stored: readonly StoredEvent[]): Promise<FollowRecord> {
  const handler = eventsHandler(host, { heartbeatMs: 0 });
  const full = await get(handler, conversation);
  const ids = full.messages.flatMap((m) => (m.id !== undefined ? [m.id] : []));
  if (ids.length < 2) return { conversation, stored, full };
  const resumed = await get(handler, conversation, ids[Math.floor((ids.length - 1) / 2)]);
  return { conversation, stored, full, resumed };
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** One GET through the handler; resolves once the response has ended. */
function get(handler: Handler, conversation: string, lastEventId?: string): Promise<FollowStream> {
  const req = Object.assign(new EventEmitter(), {
    method: 'GET',
    // A reconnect keeps the URL the UI opened (`?from=0`: from the first event); only the header says where it was.
    url: `/conversations/${encodeURIComponent(conversation)}/events${lastEventId !== undefined ? '?from=0' : ''}`,
    headers: lastEventId !== undefined ? { 'last-event-id': lastEventId } : {},
  });
  return new Promise<FollowStream>((resolve) => {
    let status = 200;
    let body = '';
    const res = Object.assign(new EventEmitter(), {
      setHeader: () => undefined,
      writeHead: (code: number) => {
        status = code;
        return res;
      },
      write: (chunk: string) => {
        body += chunk;
        return true;
      },
      end: (chunk?: string) => {
        if (chunk !== undefined) body += chunk;
        const streamed = body.startsWith('retry:');
        resolve({
          ...(lastEventId !== undefined ? { lastEventId } : {}),
          status,
          messages: streamed ? parseSse(body) : [],
          ...(streamed ? {} : { text: body }),
        });
        res.emit('close');
      },
    });
    handler(req as unknown as IncomingMessage, res as unknown as ServerResponse);
  });
}

/** The messages of an SSE body, as EventSource reads them (comments and the `retry:` field left out). */
export function parseSse(body: string): SseMessage[] {
  const messages: SseMessage[] = [];
  for (const block of body.split('\n\n')) {
    const message: { id?: string; event?: string; data?: string } = {};
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') message.id = value;
      else if (field === 'event') message.event = value;
      else if (field === 'data') message.data = message.data === undefined ? value : `${message.data}\n${value}`;
    }
    if (message.id !== undefined || message.event !== undefined || message.data !== undefined) messages.push(message);
  }
  return messages;
}
