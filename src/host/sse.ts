/**
 * A conversation's events over HTTP as server-sent events (Node's `http`, no
 * framework): what a UI connects to, and reconnects to after a drop. Each event is
 * one SSE message — `id:` its seq, `event:` its type, `data:` the event as JSON
 * (redacted) — so a browser's EventSource resumes by itself: it reconnects with
 * `Last-Event-ID` (the last seq it received) and gets every later event exactly
 * once, in order. When the conversation's work here ends, an `end` message (no id)
 * says which seq to follow from next time, and the stream closes.
 *
 *   GET /conversations/{id}/events            from the first event
 *   GET /conversations/{id}/events?from=SEQ    from SEQ
 *   Last-Event-ID: SEQ                         from SEQ + 1 (a reconnect; wins over ?from)
 */
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { InputError, LogReadError, type AnyEvent, type Redactor } from '../kernel/index.ts';
import { StoreCorruptionError, StoreError } from '../stores/event-store.ts';
import type { FollowOptions } from './follow.ts';

/** What the handler needs from the host (an `AgentHost`). */
export interface FollowableHost {
  /**
   * What this rejects with before the stream starts is answered as plain text (redacted), as a POST is: an
   * `InputError` (a bad `from`: not a seq, or past the end) 400, the client's; a `StoreCorruptionError` or
   * `LogReadError` (a damaged store, a record that does not decode as an event) 500; another `StoreError` (a
   * store that failed or is closing) 503, retry later; anything else 500.
   */
  follow(conversationId: string, options: FollowOptions): Promise<AsyncIterable<AnyEvent>>;
  readonly redact: Redactor;
  /** The host is closing: a kept-open stream it ends is cut without `end`, so the client reconnects (to the next process). */
  readonly closing?: boolean;
}

export interface EventStreamOptions {
  /** A comment line this often (ms), so proxies keep a quiet stream open. Default 15 000; 0: none. */
  readonly heartbeatMs?: number;
  /** The reconnection delay clients are told (ms). Default 1 000. */
  readonly retryMs?: number;
  /** Keep streaming later turns instead of ending when the conversation's work ends. Default false. */
  readonly keepOpen?: boolean;
}

const SEQ = /^(0|[1-9][0-9]{0,14})$/;
const ROUTE = /^\/conversations\/([^/?#]+)\/events$/;

/** A request listener serving `GET /conversations/{id}/events`; anything else is 404 (405 for another method). */
export function eventsHandler(host: FollowableHost, options: EventStreamOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const match = ROUTE.exec(url.pathname);
    if (!match) return plain(res, 404, 'not found: GET /conversations/{id}/events');
    if (req.method !== 'GET') {
      res.setHeader('allow', 'GET');
      return plain(res, 405, `${req.method} is not allowed: GET /conversations/{id}/events`);
    }
    let id: string;
    try {
      id = decodeURIComponent(match[1]!);
    } catch {
      return plain(res, 400, 'the conversation id is not valid percent-encoding');
    }
    void streamEvents(host, id, req, res, options);
  };
}

/**
 * What a follow that failed before the stream started is answered, as a POST is (host.ts, openFailureStatus): a bad
 * request is the client's (400); a damaged store — a hole, a record it calls corrupt, one that does not decode as an
 * event — is the server's and retrying cannot help (500; review of stop 69: an undecodable record was a 400); a store
 * that failed — a lost connection, a store closing — may answer later (503); anything else is a bug (500).
 */
function followFailureStatus(error: unknown): 400 | 500 | 503 {
  if (error instanceof StoreCorruptionError || error instanceof LogReadError) return 500;
  if (error instanceof StoreError) return 503;
  return error instanceof InputError ? 400 : 500;
}

/** Streams one conversation's events to `res`. Resolves when the stream has ended (the work ended, or the client left). */
export async function streamEvents(
  host: FollowableHost,
  conversationId: string,
  req: IncomingMessage,
  res: ServerResponse,
  options: EventStreamOptions = {},
): Promise<void> {
  const from = startingSeq(req, host.redact);
  if (typeof from === 'string') return plain(res, 400, from);
  const stop = new AbortController();
  const onClose = () => stop.abort();
  req.on('close', onClose);
  res.on('close', onClose);
  let events: AsyncIterable<AnyEvent>;
  try {
    events = await host.follow(conversationId, { from, signal: stop.signal, ...(options.keepOpen ? { keepOpen: true } : {}) });
  } catch (error) {
    req.off('close', onClose);
    res.off('close', onClose);
    return plain(res, followFailureStatus(error), host.redact((error as Error)?.message ?? String(error)));
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write(`retry: ${options.retryMs ?? 1_000}\n\n`);
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const heartbeat = heartbeatMs > 0 ? setInterval(() => res.write(': keep-alive\n\n'), heartbeatMs) : undefined;
  heartbeat?.unref();
  let next = from;
  try {
    for await (const event of events) {
      if (!res.write(`id: ${event.seq}\nevent: ${oneLine(event.type)}\ndata: ${JSON.stringify(event)}\n\n`)) {
        await once(res, 'drain', { signal: stop.signal });
      }
      next = event.seq + 1;
    }
    // `end` tells a UI the conversation's stream is done; a kept-open one the host's close cut is not: no `end`, and
    // the client's EventSource reconnects from its Last-Event-ID.
    if (!stop.signal.aborted && !(options.keepOpen && host.closing)) res.write(`event: end\ndata: ${JSON.stringify({ next })}\n\n`);
  } catch (error) {
    if (!stop.signal.aborted)
      res.write(`event: error\ndata: ${JSON.stringify({ message: host.redact((error as Error)?.message ?? String(error)), next })}\n\n`);
  } finally {
    if (heartbeat) clearInterval(heartbeat);
    req.off('close', onClose);
    res.off('close', onClose);
    stop.abort(); // lets go of the follower if the loop above ended early
    res.end();
  }
}

/**
 * The first seq wanted: after `Last-Event-ID`, else `?from`, else 0; or why the request is bad — quoting what the
 * client sent redacted whole, then cut (an answer is logged by proxies and UIs: outside probe 37, F5).
 */
function startingSeq(req: IncomingMessage, redact: Redactor): number | string {
  const quoted = (value: string) => JSON.stringify(redact(value).slice(0, 40));
  const last = req.headers['last-event-id'];
  if (last !== undefined) {
    const value = Array.isArray(last) ? last[0]! : last;
    if (!SEQ.test(value.trim())) return `Last-Event-ID ${quoted(value)} is not a seq: it must be the id of the last event received`;
    return Number(value.trim()) + 1;
  }
  const param = new URL(req.url ?? '/', 'http://localhost').searchParams.get('from');
  if (param === null) return 0;
  if (!SEQ.test(param)) return `from ${quoted(param)} is not a seq (a non-negative integer)`;
  return Number(param);
}

function oneLine(text: string): string {
  return text.replace(/[\r\n]/g, ' ');
}

function plain(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.end(`${message}\n`);
}
