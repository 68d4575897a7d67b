/**
 * The Anthropic Messages API on the wire: `POST /v1/messages`, SSE events named
 * after their `type`, `{"type":"error","error":{...}}` bodies.
 */
import type { Frame } from './plan.ts';
import { sseFrame } from './plan.ts';
import type { ErrorAnswer, ProtocolKit } from './protocol.ts';
import type { ErrorKind, TurnStop, WireTurn } from './turn.ts';
import {
  UnsupportedOnWire,
  pieces,
  refuseCutCallStatus,
  refuseCutCallWhole,
  refuseFinalStatus,
  refuseFinalWithoutStatus,
  refuseFunctionCallFinish,
  refuseLimitAfterWholeCall,
} from './turn.ts';

const MODEL = 'claude-sonnet-4-5-20250929';

/** A thinking block's text and signature (`thinkingFirst`). */
const THINKING = 'The user wants the weather; I should call the tool.';
const THINKING_SIGNATURE = 'EqQBCkYIBxgCKkBwireFakeSignature0000000000000000';

/** The stop sequence that ended a `stop_sequence` turn, as the Messages API names it (null otherwise). */
function stopSequence(stop: TurnStop): string | null {
  return stop === 'stop_sequence' ? '\n\nObservation:' : null;
}

function stopReason(stop: TurnStop): string | null {
  if (typeof stop === 'object') return stop.unknown;
  switch (stop) {
    case 'end':
      return 'end_turn';
    case 'stop_sequence':
      return 'stop_sequence';
    case 'tool_use':
      return 'tool_use';
    case 'max_tokens':
      return 'max_tokens';
    case 'refusal':
      return 'refusal';
    case 'content_filter':
      throw new UnsupportedOnWire('the Messages API has no content-filter stop: what its filter stops ends with stop_reason "refusal"');
    case 'overflow':
      return 'model_context_window_exceeded';
    case 'missing':
      return null;
  }
}

function usageStart(turn: WireTurn) {
  return {
    // Anthropic counts the uncached input apart from the tokens read from and written to the cache.
    input_tokens: turn.usage.input - (turn.usage.cacheRead ?? 0) - (turn.usage.cacheWrite ?? 0),
    cache_creation_input_tokens: turn.usage.cacheWrite ?? 0,
    cache_read_input_tokens: turn.usage.cacheRead ?? 0,
    output_tokens: 1,
  };
}

function event(type: string, data: Record<string, unknown>, tag: Frame['tag']): Frame {
  return sseFrame(type, { type, ...data }, tag);
}

function streamFrames(turn: WireTurn): Frame[] {
  refuseCutCallStatus(turn, 'the Messages API');
  refuseCutCallWhole(turn, 'A Messages stream');
  refuseFinalWithoutStatus(turn, 'the Messages API');
  refuseFinalStatus(turn, 'the Messages API');
  refuseFunctionCallFinish(turn, 'the Messages API');
  const frames: Frame[] = [];
  const id = 'msg_01WireFake0000000000000001';
  frames.push(
    event(
      'message_start',
      {
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model: turn.model ?? MODEL,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          ...(turn.usageOnlyAtEnd ? {} : { usage: usageStart(turn) }),
        },
      },
      'start',
    ),
  );
  frames.push(event('ping', {}, 'ping'));
  // Extended thinking: the thinking block at index 0, as the recorded anthropic-fallback-mid-output stream sends it.
  const offset = turn.thinkingFirst ? 1 : 0;
  if (turn.thinkingFirst) {
    frames.push(event('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }, 'other'));
    for (const piece of pieces(THINKING)) frames.push(event('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: piece } }, 'other'));
    frames.push(event('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: THINKING_SIGNATURE } }, 'other'));
    // Text and arguments in a thinking block: nothing a thinking block holds.
    if (turn.strayDeltas) {
      frames.push(event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'stray text' } }, 'other'));
      frames.push(event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{"stray":1}' } }, 'other'));
    }
    frames.push(event('content_block_stop', { index: 0 }, 'other'));
  }
  turn.blocks.forEach((block, at) => {
    const index = at + offset;
    if (block.type === 'text') {
      const [first = '', ...rest] = pieces(block.text);
      const opening = turn.textInBlockStart ? first : '';
      frames.push(event('content_block_start', { index, content_block: { type: 'text', text: opening } }, 'block_start'));
      for (const piece of turn.textInBlockStart ? rest : [first, ...rest]) {
        frames.push(event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }, 'text_delta'));
      }
      // Arguments in a text block: nothing a text block holds.
      if (turn.strayDeltas)
        frames.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '{"stray":1}' } }, 'args_delta'));
    } else {
      const input = turn.inputInBlockStart && block.args ? (JSON.parse(block.args) as unknown) : {};
      frames.push(event('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input } }, 'block_start'));
      // Like the API: a first empty fragment, then the JSON in pieces (none when the input came whole above).
      const afterWholeInput = turn.blankInputDeltas ? [' ', '\n'] : [];
      for (const piece of turn.inputInBlockStart ? afterWholeInput : ['', ...(block.args ? pieces(block.args) : [])]) {
        frames.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } }, 'args_delta'));
      }
      // Text in a tool_use block: nothing a call holds.
      if (turn.strayDeltas) frames.push(event('content_block_delta', { index, delta: { type: 'text_delta', text: 'stray text' } }, 'text_delta'));
    }
    frames.push(event('content_block_stop', { index }, 'block_stop'));
  });
  const stop = stopReason(turn.stop);
  frames.push(
    event(
      'message_delta',
      {
        delta: {
          stop_reason: stop,
          stop_sequence: stopSequence(turn.stop),
          ...(turn.stop === 'refusal' && turn.refusal?.details !== undefined ? { stop_details: turn.refusal.details } : {}),
        },
        usage: { output_tokens: turn.usage.output },
      },
      'stop',
    ),
  );
  frames.push(event('message_stop', {}, 'final'));
  return frames;
}

/** A complete Messages body carries a call's input as an object: arguments cut off mid-JSON have no form there. */
function completeInput(args: string): unknown {
  if (args === '') return {};
  try {
    return JSON.parse(args);
  } catch {
    throw new UnsupportedOnWire(
      'a complete Messages body carries tool input as a JSON object; arguments cut off mid-JSON have no form there (the streaming harness runs this case)',
    );
  }
}

function completeBody(turn: WireTurn): unknown {
  refuseLimitAfterWholeCall(turn, 'A complete Messages body');
  refuseCutCallStatus(turn, 'the Messages API');
  refuseFinalWithoutStatus(turn, 'the Messages API');
  refuseFinalStatus(turn, 'the Messages API');
  refuseFunctionCallFinish(turn, 'the Messages API');
  return {
    id: 'msg_01WireFake0000000000000002',
    type: 'message',
    role: 'assistant',
    model: turn.model ?? MODEL,
    content: [
      ...(turn.thinkingFirst ? [{ type: 'thinking', thinking: THINKING, signature: THINKING_SIGNATURE }] : []),
      ...turn.blocks.map((block) =>
        block.type === 'text' ? { type: 'text', text: block.text } : { type: 'tool_use', id: block.id, name: block.name, input: completeInput(block.args) },
      ),
    ],
    // A missing stop reason is a body without the field (a gateway's), where the stream above sends it null; or the
    // field written null (`nullStopReason`).
    ...(turn.stop !== 'missing' || turn.nullStopReason ? { stop_reason: stopReason(turn.stop) } : {}),
    stop_sequence: stopSequence(turn.stop),
    ...(turn.stop === 'refusal' ? { stop_details: turn.refusal?.details ?? null } : {}),
    usage: { ...usageStart(turn), output_tokens: turn.usage.output },
  };
}

function errorBody(type: string, message: string) {
  return { type: 'error', error: { type, message }, request_id: 'req_011WireFake000000000000' };
}

const ANTHROPIC_INVALID_REQUEST_MESSAGE =
  'messages.0.content.1.image.source.base64.data: The image was specified using the image/png media type, but the image appears to be a image/gif image';

export const ANTHROPIC_OVERFLOW_MESSAGE = 'prompt is too long: 215438 tokens > 200000 maximum';

function errorAnswer(kind: ErrorKind, status?: number): ErrorAnswer {
  switch (kind) {
    case 'overflow':
      return { status: status ?? 400, body: errorBody('invalid_request_error', ANTHROPIC_OVERFLOW_MESSAGE) };
    case 'overflow_input_and_max_tokens':
      return {
        status: status ?? 400,
        body: errorBody(
          'invalid_request_error',
          'input length and max_tokens exceed context limit: 187254 + 20000 > 200000, decrease input length or max_tokens and try again',
        ),
      };
    case 'auth':
      return { status: status ?? 401, body: errorBody('authentication_error', 'invalid x-api-key') };
    case 'forbidden':
      return { status: status ?? 403, body: errorBody('permission_error', 'Your API key does not have permission to use the specified resource.') };
    case 'rate_limited':
      return {
        status: status ?? 429,
        body: errorBody('rate_limit_error', 'This request would exceed the rate limit for your organization of 50,000 input tokens per minute.'),
      };
    case 'quota':
      return {
        status: status ?? 402,
        body: errorBody(
          'billing_error',
          'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
        ),
      };
    case 'server_error':
      return { status: status ?? 500, body: errorBody('api_error', 'Internal server error') };
    case 'overloaded':
      return { status: status ?? 529, body: errorBody('overloaded_error', 'Overloaded') };
    case 'request_timeout':
      return { status: status ?? 408, body: errorBody('api_error', 'Request Timeout') };
    case 'overflow_by_code':
    case 'overflow_by_words':
      throw new UnsupportedOnWire('the Messages API has no error code: an overflow is told by its words (overflow, overflow_input_and_max_tokens)');
    case 'request_too_large':
      return { status: status ?? 413, body: errorBody('request_too_large', 'Request exceeds the maximum allowed number of bytes.') };
    case 'invalid_request':
      return { status: status ?? 400, body: errorBody('invalid_request_error', ANTHROPIC_INVALID_REQUEST_MESSAGE) };
  }
}

export const anthropicWire: ProtocolKit = {
  provider: 'anthropic',
  path: '/v1/messages',
  streamFrames,
  completeBody,
  answerKey: 'content',
  errorAnswer,
  // The stream's error event carries the same body as the HTTP error; a timeout
  // inside a stream is the API's documented `timeout_error` (its 504's type).
  // A rate limit is always told by its type (rate_limit_error), so `rate_limited_by_type` is the same event.
  errorEventFrame: (kind) => {
    if (kind === 'overflow') throw new UnsupportedOnWire('Anthropic reports a context overflow as a 400 before the stream, never as an error event');
    if (kind === 'untyped') throw new UnsupportedOnWire('the Messages API types every error event (api_error, overloaded_error, …)');
    return sseFrame(
      'error',
      kind === 'request_timeout' ? errorBody('timeout_error', 'Request timed out') : errorAnswer(kind === 'rate_limited_by_type' ? 'rate_limited' : kind).body,
      'error',
    );
  },
  malformedFrame: () => ({
    text: 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel\n\n',
    tag: 'malformed',
  }),
  endTags: ['final'],
  duplicableTags: ['start', 'ping', 'block_start', 'block_stop', 'stop', 'final'],
};
