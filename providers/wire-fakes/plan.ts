/**
 * What a wire-level fake answers to one request, independent of how it is served
 * (msw interception in tests, or a real local HTTP server standing in for an API).
 */

/** One piece written to the stream: usually one SSE event, tagged by its role. */
export interface Frame {
  readonly text: string;
  readonly tag: FrameTag;
}

export type FrameTag =
  | 'start' // message_start / response.created / the role chunk
  | 'ping'
  | 'block_start'
  | 'text_delta'
  | 'args_delta'
  | 'refusal_delta'
  | 'block_stop'
  | 'stop' // the event carrying the stop reason
  | 'usage'
  | 'final' // the protocol's last event (message_stop / [DONE] / response.completed)
  | 'error'
  | 'malformed'
  | 'other';

export type StreamEnd =
  /** Ends the body cleanly. */
  | 'close'
  /** Drops the connection (the client sees the body end abruptly). */
  | 'reset'
  /** Keeps the connection open and sends nothing more. */
  | 'stall';

export type WirePlan =
  /** The connection is reset before any response byte. */
  | { readonly kind: 'reset' }
  /** The server accepts the request and never answers (no headers). */
  | { readonly kind: 'hang' }
  /** A complete body (JSON, an error, or any text). */
  | {
      readonly kind: 'body';
      readonly status: number;
      readonly body: string;
      readonly contentType?: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  /** A server-sent-events stream. */
  | {
      readonly kind: 'stream';
      readonly status?: number;
      readonly frames: readonly Frame[];
      readonly end: StreamEnd;
      readonly headers?: Readonly<Record<string, string>>;
    };

export function jsonPlan(status: number, body: unknown, headers?: Record<string, string>): WirePlan {
  return { kind: 'body', status, body: JSON.stringify(body), contentType: 'application/json', ...(headers ? { headers } : {}) };
}

export function streamPlan(frames: readonly Frame[], end: StreamEnd = 'close', status = 200): WirePlan {
  return { kind: 'stream', frames, end, status };
}

/** An SSE event: `event:` line only when named, then one `data:` line. */
export function sseFrame(event: string | null, data: unknown, tag: FrameTag): Frame {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return { text: `${event !== null ? `event: ${event}\n` : ''}data: ${payload}\n\n`, tag };
}
