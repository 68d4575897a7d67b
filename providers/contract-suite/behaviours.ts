/**
 * What a contract case needs the provider to do, said once for every provider.
 * A harness makes it happen (on the wire, or in a script) or says it cannot.
 */
import type { WireProvider } from '../names.ts';
import type { FrameTag } from '../wire-fakes/plan.ts';
import type { ErrorKind, StreamErrorKind, WireTurn } from '../wire-fakes/turn.ts';

export type { ErrorKind, WireTurn } from '../wire-fakes/turn.ts';

export type StreamFault =
  /**
   * The stream sends up to the `nth` frame tagged `after`, then nothing more (connection open).
   * `fetchDropsSignal`: the adapter is given a fetch of its own (a user's wrapper) that does not pass the
   * abort signal on (wire-fakes/signal-dropping-fetch.ts): aborting never reaches the connection, so only the
   * call itself can end on time. Only a harness that builds adapters can.
   * `oneRead`: every frame before the stall comes in one network read (a proxy that buffers the stream and
   * flushes it at once), so the SDK hands the adapter its events back to back, with no read between them.
   * Only a harness that serves bytes can.
   */
  | {
      readonly type: 'stall';
      readonly after: FrameTag;
      readonly nth?: number;
      readonly fetchDropsSignal?: boolean;
      readonly oneRead?: boolean;
    }
  /**
   * The stream sends up to the `nth` frame tagged `after`, then the connection drops.
   * `failsWith`: the adapter is given a fetch of its own (a wrapper, a polyfill) whose body read then fails
   * with this value, not an Error (wire-fakes/body-fails-with.ts). Only a harness that builds adapters can.
   */
  | { readonly type: 'reset'; readonly after: FrameTag; readonly nth?: number; readonly failsWith?: { readonly value: unknown } }
  /** A data line with cut-off JSON after the first frame tagged `after`. */
  | { readonly type: 'malformed'; readonly after: FrameTag }
  /** An error event (the service is overloaded, unless `error` says otherwise) after the first frame tagged `after`. */
  /**
   * `asFailedResponse`: the failure comes as the response's own failed ending, not an error event (OpenAI
   * Responses' `response.failed`, the error in `response.error`); only a protocol with such an ending can.
   * `failedWithUsage`: that failed response reports the turn's usage (else `usage: null`).
   */
  | {
      readonly type: 'error_event';
      readonly after: FrameTag;
      readonly error?: StreamErrorKind;
      readonly asFailedResponse?: boolean;
      readonly failedWithUsage?: boolean;
    }
  /** The stream closes without the frames that end the response. */
  | { readonly type: 'drop_end' }
  /** Framing events (and, where sequence numbers allow, every event) sent twice. */
  | { readonly type: 'duplicate' }
  /** The whole response, then the connection stays open. */
  | { readonly type: 'stall_after_end' }
  /** Every frame tagged `tag` left out (a proxy that drops events it does not pass on); the rest as sent. */
  | { readonly type: 'without'; readonly tag: FrameTag }
  /** The response's first block (its start, deltas and end) comes before the event that opens the response, which follows it. */
  | { readonly type: 'content_before_start' }
  /** The response's first block opens (its start only) before the event that opens the response, which follows it at once; the rest as sent. */
  | { readonly type: 'block_start_before_start' }
  /** The event carrying the stop reason (and the output usage) comes first, before the event that opens the response; the rest as sent. */
  | { readonly type: 'stop_before_start' }
  /**
   * After the first frame tagged `after`, an event of the same name whose data is the JSON `null` (a gateway that
   * writes an empty event so): the SDKs parse it and hand the adapter `null`. The rest as sent.
   */
  | { readonly type: 'null_data'; readonly after: FrameTag }
  /**
   * Every event's own `index` (the block it belongs to) left out, as a proxy that re-serializes events it does not
   * know may send them; the rest as sent. Only a protocol whose events carry one (Anthropic's content blocks) can.
   */
  | { readonly type: 'without_index' };

export type Behaviour =
  /** The model produces this turn over a well-formed stream. */
  | {
      readonly kind: 'turn';
      readonly turn: WireTurn;
      /**
       * The turn's text and arguments quote the credential the request carried
       * (a model echoing a key a user pasted, a gateway that writes it into the
       * reply): the harness writes it where they say `{{credential}}`, and its
       * base64 where they say `{{credential:base64}}`. Only a harness that knows
       * the credential can produce it.
       */
      readonly quotesCredential?: boolean;
    }
  /** The provider answers with an error status and its error body. */
  | {
      readonly kind: 'http_error';
      readonly error: ErrorKind;
      readonly status?: number;
      /** `''`: the header is sent blank (a gateway that copies an absent value through), which says no wait at all. */
      readonly retryAfterSeconds?: number | '';
      /** `retry-after` written as an HTTP date that many seconds ahead (RFC 9110 allows either; gateways and CDNs send dates). */
      readonly retryAfterAsDate?: boolean;
      /**
       * A `retry-after-ms` header (milliseconds, as OpenAI sends it next to `retry-after`): it is the finer of the two and wins.
       * `''`: the header is sent blank (a gateway that copies an absent value through), which says no wait: `retry-after` decides.
       */
      readonly retryAfterMsHeader?: number | '';
      /**
       * The error message quotes the credential the request carried, as some
       * gateways' 401s do ("Invalid API key provided: …", "Received API Key = …"):
       * as sent (`true`), every byte `%HH` (`percent`) or in base64 (`base64`, of
       * `user:<credential>`). Only a harness that knows the credential can produce it.
       */
      readonly quotesCredential?: boolean | 'percent' | 'base64';
    }
  /** The turn's stream, with a fault. */
  | { readonly kind: 'stream_fault'; readonly turn: WireTurn; readonly fault: StreamFault }
  /** The connection is reset before any response. */
  | { readonly kind: 'reset_before_response' }
  /**
   * The connection attempt itself times out: no server answers, and the
   * client's fetch fails as undici's does after its connect timeout.
   */
  | { readonly kind: 'connect_timeout' }
  /** A 200 stream with no events at all. */
  | { readonly kind: 'empty_stream' }
  /**
   * Something in front of the provider (an API gateway, a proxy) answers for it:
   * this status and body, the same for every provider, not in any provider's
   * error format. Only a harness with a wire can produce it. `onlyFor`: the
   * providers whose documented answer this status is (another's adapter reads it
   * otherwise, rightly): a visible skip elsewhere, with `why`.
   */
  | {
      readonly kind: 'gateway_answer';
      readonly status: number;
      readonly body: string;
      readonly contentType: string;
      readonly onlyFor?: { readonly providers: readonly WireProvider[]; readonly why: string };
    };
