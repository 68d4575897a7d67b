/**
 * Turns a plan into an HTTP answer. `planResponse` builds a standard `Response`
 * for msw; `servePlanOnNode` writes the same bytes to a node:http response.
 *
 * Streams are sent with `transfer-encoding: chunked`, as the real APIs send them,
 * so a reset mid-body is seen by the client as a dropped connection rather than a
 * short but complete body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Frame, WirePlan } from './plan.ts';

/** Longest a stall lasts if nobody aborts; then the connection is reset. */
const MAX_STALL_MS = 60_000;

export class WireReset extends Error {
  readonly code = 'ECONNRESET';
  constructor() {
    super('read ECONNRESET (wire fake: connection reset)');
  }
}

function streamHeaders(plan: Extract<WirePlan, { kind: 'stream' }>): Record<string, string> {
  return {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'transfer-encoding': 'chunked',
    ...plan.headers,
  };
}

/**
 * Waits for `ms`, or until `signal` aborts. A stall (long wait) does not keep
 * the process alive; the short pauses between frames must, or a process whose
 * only work is reading the stream would exit mid-response.
 */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  // No wait at all: the next turn of the event loop (a timer of 0 ms would wait 1 ms).
  if (ms === 0 && !signal) return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    if (ms >= MAX_STALL_MS) timer.unref?.();
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** A body stream that sends one frame per read (so deltas arrive one by one). */
function frameStream(frames: readonly Frame[], end: 'close' | 'reset' | 'stall', signal?: AbortSignal): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let index = 0;
  const cancelled = new AbortController();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index < frames.length) {
        // A macrotask between frames, like packets on a socket.
        await pause(0);
        controller.enqueue(encoder.encode(frames[index]!.text));
        index++;
        return;
      }
      if (end === 'close') return controller.close();
      if (end === 'reset') {
        await pause(1);
        return controller.error(new WireReset());
      }
      await pause(MAX_STALL_MS, AbortSignal.any([cancelled.signal, ...(signal ? [signal] : [])]));
      if (!cancelled.signal.aborted && !signal?.aborted) controller.error(new WireReset());
    },
    cancel() {
      cancelled.abort();
    },
  });
}

/** The answer for msw: a Response, `Response.error()` for a reset, or a hang until abort. */
export async function planResponse(plan: WirePlan, signal?: AbortSignal): Promise<Response> {
  switch (plan.kind) {
    case 'reset':
      return Response.error();
    case 'hang':
      await pause(MAX_STALL_MS, signal);
      return Response.error();
    case 'body':
      return new Response(plan.body, {
        status: plan.status,
        headers: { 'content-type': plan.contentType ?? 'application/json', ...plan.headers },
      });
    case 'stream':
      return new Response(frameStream(plan.frames, plan.end, signal), {
        status: plan.status ?? 200,
        headers: streamHeaders(plan),
      });
  }
}

/** Serves a plan on a real socket (for a local server standing in for an API). */
export async function servePlanOnNode(plan: WirePlan, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const aborted = new AbortController();
  res.on('close', () => aborted.abort());
  switch (plan.kind) {
    case 'reset':
      req.socket.destroy();
      return;
    case 'hang':
      await pause(MAX_STALL_MS, aborted.signal);
      req.socket.destroy();
      return;
    case 'body':
      res.writeHead(plan.status, { 'content-type': plan.contentType ?? 'application/json', ...plan.headers });
      res.end(plan.body);
      return;
    case 'stream': {
      const headers = streamHeaders(plan);
      delete headers['transfer-encoding']; // node frames an unknown-length body as chunked itself
      res.writeHead(plan.status ?? 200, headers);
      for (const frame of plan.frames) {
        if (aborted.signal.aborted) return;
        res.write(frame.text);
        await pause(0);
      }
      if (plan.end === 'close') res.end();
      else if (plan.end === 'reset') req.socket.destroy();
      else {
        await pause(MAX_STALL_MS, aborted.signal);
        req.socket.destroy();
      }
      return;
    }
  }
}
