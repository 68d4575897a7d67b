/**
 * What each provider's wire module offers the fakes: a turn written as SSE
 * frames, a complete (non-streaming) body, error bodies, and the frames the
 * stream faults need.
 */
import type { WireProvider } from '../names.ts';
import type { Frame, FrameTag } from './plan.ts';
import type { ErrorKind, StreamErrorKind, TurnUsage, WireTurn } from './turn.ts';

export interface ErrorAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface ProtocolKit {
  readonly provider: WireProvider;
  /** The request path under the base URL. */
  readonly path: string;
  /** The turn as a stream. Throws UnsupportedOnWire when the provider cannot say it. */
  streamFrames(turn: WireTurn): Frame[];
  /** The turn as a non-streaming JSON body. */
  completeBody(turn: WireTurn): unknown;
  /** The key of a complete body that carries the answer (`content`, `choices`, `output`): a body without it ends nothing. */
  readonly answerKey: string;
  /** The error answer for a kind; `status` overrides the usual one (e.g. 503 vs 529). */
  errorAnswer(kind: ErrorKind, status?: number): ErrorAnswer;
  /** An error event inside a 200 stream, saying the service is overloaded, the rate limit was hit or the request timed out. */
  errorEventFrame(kind: StreamErrorKind): Frame;
  /**
   * The failure as the response's own failed ending (OpenAI Responses' `response.failed`, the error in
   * `response.error`), where the protocol has one; absent where it has none. `usage`: the tokens the
   * failed response reports it used (none when absent: `usage: null`).
   */
  failedResponseFrame?(kind: StreamErrorKind, usage?: TurnUsage): Frame;
  /** A data line whose JSON is cut off. */
  malformedFrame(): Frame;
  /** Frames that carry the end of the response; dropping them leaves a stream without its end. */
  readonly endTags: readonly FrameTag[];
  /** Frames that can be sent twice without changing meaning for a correct client. */
  readonly duplicableTags: readonly FrameTag[];
  /**
   * Why content before the event that opens the response (`start`) breaks nothing
   * in this protocol; absent where that event must come first (Anthropic's
   * `message_start`), so such a stream is malformed.
   */
  readonly contentBeforeStart?: string;
}
