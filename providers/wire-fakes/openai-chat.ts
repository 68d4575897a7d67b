/**
 * OpenAI Chat Completions on the wire: `POST /v1/chat/completions`, `data:`-only
 * SSE chunks, a usage chunk (with `stream_options.include_usage`), `data: [DONE]`,
 * and `{"error":{...}}` bodies.
 */
import type { Frame } from './plan.ts';
import { sseFrame } from './plan.ts';
import type { ErrorAnswer, ProtocolKit } from './protocol.ts';
import type { ErrorKind, TurnStop, WireTurn } from './turn.ts';
import { UnsupportedOnWire, pieces, refuseCutCallStatus, refuseCutCallWhole, refuseFinalStatus, refuseFinalWithoutStatus } from './turn.ts';

const MODEL = 'gpt-4o-2024-08-06';
const ID = 'chatcmpl-WireFake000000000000000001';

/** The turn's `finish_reason`; `function_call` for a tool-use stop when the turn asks for the deprecated reason. */
function finishOf(turn: WireTurn): string | null {
  return turn.functionCallFinish === true && turn.stop === 'tool_use' ? 'function_call' : finishReason(turn.stop);
}

function finishReason(stop: TurnStop): string | null {
  if (typeof stop === 'object') return stop.unknown;
  switch (stop) {
    case 'end':
    case 'stop_sequence':
    case 'refusal':
      return 'stop';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
      return 'length';
    case 'content_filter':
      return 'content_filter';
    case 'missing':
      return null;
    case 'overflow':
      throw new UnsupportedOnWire(
        'OpenAI Chat Completions has no stop reason for a context window filled during generation: it rejects the request up front, or stops with finish_reason "length"',
      );
  }
}

function usage(turn: WireTurn) {
  if (turn.usage.cacheWrite) throw new UnsupportedOnWire('OpenAI reports no cache-write tokens: its usage cannot say them');
  return {
    prompt_tokens: turn.usage.input,
    completion_tokens: turn.usage.output,
    total_tokens: turn.usage.input + turn.usage.output,
    prompt_tokens_details: { cached_tokens: turn.usage.cacheRead ?? 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

/** The answer of the other choice (`otherChoiceFirst`): not the model's answer to the turn. */
const OTHER_CHOICE_TEXT = 'Choice 1, not the answer. ';

/**
 * One chunk of choice 0. With `other` (`otherChoiceFirst`), choice 1's delta comes
 * first in the same chunk: its role, a piece of its own text, or its finish.
 */
function chunk(delta: Record<string, unknown>, finish: string | null, model: string, other = false): Record<string, unknown> {
  const otherDelta = 'role' in delta ? { role: 'assistant', content: '' } : finish !== null ? {} : { content: OTHER_CHOICE_TEXT };
  return {
    id: ID,
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model,
    system_fingerprint: 'fp_wirefake',
    choices: [
      ...(other ? [{ index: 1, delta: otherDelta, logprobs: null, finish_reason: finish === null ? null : 'stop' }] : []),
      { index: 0, delta, logprobs: null, finish_reason: finish },
    ],
  };
}

/** Mistral's thinking part (`contentAsParts`): the model's thinking, not its answer. */
const THINKING = 'The user wants the weather; I should call the tool.';
function thinkingPart(text: string) {
  return { type: 'thinking', thinking: [{ type: 'text', text }] };
}

/** The `null` a part array leads with under `nullContentPart`. */
function nulls(turn: WireTurn): null[] {
  return turn.nullContentPart ? [null] : [];
}

/** The argument text a call's first chunk carries: its first piece under `argsInFirstChunk`, else none. */
function firstPiece(turn: WireTurn, args: string): string {
  return turn.argsInFirstChunk && args ? pieces(args)[0]! : '';
}

function streamFrames(turn: WireTurn): Frame[] {
  refuseCutCallStatus(turn, 'OpenAI Chat Completions');
  refuseCutCallWhole(turn, 'OpenAI Chat Completions');
  refuseFinalWithoutStatus(turn, 'OpenAI Chat Completions');
  refuseFinalStatus(turn, 'OpenAI Chat Completions');
  const finish = finishOf(turn);
  const model = turn.model ?? MODEL;
  const other = turn.otherChoiceFirst === true;
  const none = turn.blankRefusal ? '' : null;
  const frames: Frame[] = [sseFrame(null, chunk({ role: 'assistant', content: '', refusal: none }, null, model, other), 'start')];
  // Each call's frames: its first chunk (index, id, name), then its argument pieces.
  const callFrames: Frame[][] = [];
  let thoughtSent = false;
  for (const block of turn.blocks) {
    if (block.type === 'text') {
      if (turn.contentAsParts && !thoughtSent) {
        thoughtSent = true;
        for (const piece of pieces(THINKING))
          frames.push(sseFrame(null, chunk({ content: [...nulls(turn), thinkingPart(piece)] }, null, model, other), 'other'));
      }
      for (const piece of pieces(block.text))
        frames.push(
          sseFrame(
            null,
            chunk(
              { content: turn.contentAsParts ? [...nulls(turn), { type: 'text', text: piece }] : piece, ...(turn.blankRefusal ? { refusal: '' } : {}) },
              null,
              model,
              other,
            ),
            'text_delta',
          ),
        );
      continue;
    }
    const index = callFrames.length;
    if (turn.unindexed) {
      const whole = { id: block.id, type: 'function', function: { name: block.name, arguments: block.args } };
      frames.push(sseFrame(null, chunk({ tool_calls: [whole] }, null, model, other), 'block_start'));
      callFrames.push([]);
      continue;
    }
    const own: Frame[] = turn.noCallIds
      ? [sseFrame(null, chunk({ tool_calls: [{ index, type: 'function', function: { name: block.name, arguments: '' } }] }, null, model, other), 'block_start')]
      : turn.lateCallIds
        ? [
            sseFrame(
              null,
              chunk({ tool_calls: [{ index, type: 'function', function: { name: block.name, arguments: '' } }] }, null, model, other),
              'block_start',
            ),
            sseFrame(null, chunk({ tool_calls: [{ index, id: block.id }] }, null, model, other), 'block_start'),
          ]
        : turn.callFieldsOnePerChunk
          ? [
              sseFrame(null, chunk({ tool_calls: [{ index, id: block.id }] }, null, model, other), 'block_start'),
              sseFrame(null, chunk({ tool_calls: [{ index, type: 'function' }] }, null, model, other), 'block_start'),
              sseFrame(null, chunk({ tool_calls: [{ index, function: { name: block.name } }] }, null, model, other), 'block_start'),
            ]
          : turn.lateCallNames
            ? [
                sseFrame(
                  null,
                  chunk({ tool_calls: [{ index, id: block.id, type: 'function', function: { arguments: '' } }] }, null, model, other),
                  'block_start',
                ),
                sseFrame(null, chunk({ tool_calls: [{ index, function: { name: block.name } }] }, null, model, other), 'block_start'),
              ]
            : [
                sseFrame(
                  null,
                  chunk(
                    { tool_calls: [{ index, id: block.id, type: 'function', function: { name: block.name, arguments: firstPiece(turn, block.args) } }] },
                    null,
                    model,
                    other,
                  ),
                  'block_start',
                ),
              ];
    const argPieces = block.args ? pieces(block.args) : [];
    // With argsInFirstChunk the first piece went out in the call's first chunk (when that chunk is the usual one).
    const firstSent = turn.argsInFirstChunk && !turn.noCallIds && !turn.lateCallIds && !turn.callFieldsOnePerChunk && !turn.lateCallNames;
    for (const piece of firstSent ? argPieces.slice(1) : argPieces) {
      const fn = turn.blankCallNames ? { name: '', arguments: piece } : { arguments: piece };
      own.push(sseFrame(null, chunk({ tool_calls: [{ index, function: fn }] }, null, model, other), 'args_delta'));
    }
    callFrames.push(own);
    if (!turn.interleaved) frames.push(...own);
  }
  if (turn.interleaved) {
    // Round by round: every call's first chunk, then every call's first argument piece, and so on —
    // so only the index tells which call a chunk belongs to.
    for (let round = 0; callFrames.some((own) => round < own.length); round++) for (const own of callFrames) if (round < own.length) frames.push(own[round]!);
  }
  if (turn.stop === 'refusal') {
    for (const piece of pieces(turn.refusal?.text ?? "I'm sorry, I can't help with that.")) {
      frames.push(sseFrame(null, chunk({ refusal: piece }, null, model, other), 'refusal_delta'));
    }
  }
  frames.push(sseFrame(null, chunk({}, finish, model, other), 'stop'));
  frames.push(
    sseFrame(
      null,
      { id: ID, object: 'chat.completion.chunk', created: 1_760_000_000, model, system_fingerprint: 'fp_wirefake', choices: [], usage: usage(turn) },
      'usage',
    ),
  );
  frames.push(sseFrame(null, '[DONE]', 'final'));
  return turn.usageOnEveryChunk ? frames.map((frame, k) => withUsageSoFar(frame, turn, k)) : frames;
}

/** A chunk of `usageOnEveryChunk`: its own data, with the counts so far (the usage chunk and `[DONE]` as they are). */
function withUsageSoFar(frame: Frame, turn: WireTurn, k: number): Frame {
  if (frame.tag === 'usage' || frame.tag === 'final') return frame;
  const data = JSON.parse(frame.text.slice('data: '.length).trimEnd()) as Record<string, unknown>;
  // The chunk with the finish reason follows the last token: its counts are the totals.
  const output = frame.tag === 'stop' ? turn.usage.output : Math.min(k, turn.usage.output - 1);
  return sseFrame(null, { ...data, usage: { prompt_tokens: turn.usage.input, completion_tokens: output, total_tokens: turn.usage.input + output } }, frame.tag);
}

function completeBody(turn: WireTurn): unknown {
  refuseCutCallStatus(turn, 'OpenAI Chat Completions');
  refuseCutCallWhole(turn, 'OpenAI Chat Completions');
  refuseFinalWithoutStatus(turn, 'OpenAI Chat Completions');
  refuseFinalStatus(turn, 'OpenAI Chat Completions');
  const text = turn.blocks
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('');
  const calls = turn.blocks.flatMap((b) =>
    b.type !== 'tool_call'
      ? []
      : turn.callsWithoutFunction
        ? [{ id: b.id, type: 'function' }]
        : [{ id: b.id, type: 'function', function: { name: b.name, arguments: b.args } }],
  );
  return {
    id: ID,
    object: 'chat.completion',
    created: 1_760_000_000,
    model: turn.model ?? MODEL,
    choices: [
      ...(turn.otherChoiceFirst
        ? [
            {
              index: 1,
              message: { role: 'assistant', content: OTHER_CHOICE_TEXT.trim(), refusal: null, annotations: [] },
              logprobs: null,
              finish_reason: 'stop',
            },
          ]
        : []),
      {
        index: 0,
        message: {
          role: 'assistant',
          content: turn.contentAsParts ? [...nulls(turn), thinkingPart(THINKING), ...(text === '' ? [] : [{ type: 'text', text }])] : text === '' ? null : text,
          refusal: turn.stop === 'refusal' ? (turn.refusal?.text ?? "I'm sorry, I can't help with that.") : turn.blankRefusal ? '' : null,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
          annotations: [],
        },
        logprobs: null,
        finish_reason: finishOf(turn),
      },
    ],
    usage: usage(turn),
  };
}

export function openAIErrorBody(message: string, type: string, code: string | null, param: string | null = null) {
  return { error: { message, type, param, code } };
}

/** OpenAI's words for a tokens-per-minute rate limit. */
/** The words of an error that says nothing else (`untyped`): no type, no code as text. */
export const UNTYPED_ERROR_MESSAGE = 'The model worker stopped unexpectedly.';

export const OPENAI_TPM_MESSAGE =
  'Rate limit reached for gpt-4o in organization org-wirefake on tokens per min (TPM): Limit 30000, Used 30000, Requested 512. Please try again in 1.024s.';

/** OpenAI's refusal of a prompt its safety system flagged (code `invalid_prompt`): the same prompt is refused again. */
export const OPENAI_INVALID_PROMPT_MESSAGE =
  'Invalid prompt: your prompt was flagged as potentially violating our usage policy. Please try again with a different prompt.';

export const OPENAI_CHAT_OVERFLOW_MESSAGE =
  "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.";

/** An overflow worded without naming the context window: only its code says what it is. */
export const OPENAI_OVERFLOW_BY_CODE_MESSAGE = 'The request has 131072 tokens, over the 128000 this model takes. Shorten the conversation.';

export function openAIErrorAnswer(kind: ErrorKind, overflowMessage: string, overflowParam: string, status?: number): ErrorAnswer {
  switch (kind) {
    case 'overflow_input_and_max_tokens':
      throw new UnsupportedOnWire('OpenAI words every context overflow alike (code context_length_exceeded): overflow_at_request covers it');
    case 'overflow':
      return {
        status: status ?? 400,
        body: openAIErrorBody(overflowMessage, 'invalid_request_error', 'context_length_exceeded', overflowParam),
      };
    case 'overflow_by_code':
      return {
        status: status ?? 400,
        body: openAIErrorBody(OPENAI_OVERFLOW_BY_CODE_MESSAGE, 'invalid_request_error', 'context_length_exceeded', overflowParam),
      };
    case 'overflow_by_words':
      return { status: status ?? 400, body: openAIErrorBody(overflowMessage, 'invalid_request_error', null, overflowParam) };
    case 'auth':
      return {
        status: status ?? 401,
        body: openAIErrorBody(
          'Incorrect API key provided: sk-wire*****fake. You can find your API key at https://platform.openai.com/account/api-keys.',
          'invalid_request_error',
          'invalid_api_key',
        ),
      };
    case 'forbidden':
      // What OpenAI answers from a country it does not serve: only the status says the key cannot be used.
      return {
        status: status ?? 403,
        body: openAIErrorBody('Country, region, or territory not supported', 'request_forbidden', 'unsupported_country_region_territory'),
      };
    case 'rate_limited':
      return {
        status: status ?? 429,
        body: openAIErrorBody(OPENAI_TPM_MESSAGE, 'tokens', 'rate_limit_exceeded'),
      };
    case 'quota':
      // Sent as a 429, like a rate limit, with a retry-after: only the error's type says retrying cannot help.
      return {
        status: status ?? 429,
        headers: { 'retry-after': '1' },
        body: openAIErrorBody('You exceeded your current quota, please check your plan and billing details.', 'insufficient_quota', 'insufficient_quota'),
      };
    case 'server_error':
      return {
        status: status ?? 500,
        body: openAIErrorBody('The server had an error while processing your request. Sorry about that!', 'server_error', null),
      };
    case 'overloaded':
      return { status: status ?? 503, body: openAIErrorBody('The server is overloaded or not ready yet.', 'server_error', null) };
    case 'request_timeout':
      return { status: status ?? 408, body: openAIErrorBody('Request Timeout', 'server_error', null) };
    case 'invalid_request':
      return { status: status ?? 400, body: openAIErrorBody(OPENAI_INVALID_PROMPT_MESSAGE, 'invalid_request_error', 'invalid_prompt') };
    case 'request_too_large':
      throw new UnsupportedOnWire(
        "OpenAI documents no answer for a request over a size limit (a 413 with an error type of its own): only Anthropic's request_too_large says it",
      );
  }
}

export const openAIChatWire: ProtocolKit = {
  provider: 'openai-chat',
  path: '/v1/chat/completions',
  streamFrames,
  completeBody,
  answerKey: 'choices',
  errorAnswer: (kind, status) => openAIErrorAnswer(kind, OPENAI_CHAT_OVERFLOW_MESSAGE, 'messages', status),
  // A data chunk holding the error body, as the API sends an error that happens mid-stream.
  errorEventFrame: (kind) => {
    if (kind === 'request_timeout') throw new UnsupportedOnWire('OpenAI documents no timeout error inside a Chat Completions stream');
    if (kind === 'overflow') throw new UnsupportedOnWire('Chat Completions reports a context overflow as a 400 before the stream, never inside it');
    if (kind === 'rate_limited_by_type') return sseFrame(null, openAIErrorBody(OPENAI_TPM_MESSAGE, 'tokens', null), 'error');
    if (kind === 'untyped') return sseFrame(null, { error: { message: UNTYPED_ERROR_MESSAGE, code: 500 } }, 'error');
    return sseFrame(null, openAIErrorAnswer(kind, OPENAI_CHAT_OVERFLOW_MESSAGE, 'messages').body, 'error');
  },
  malformedFrame: () => ({
    text: `data: {"id":"${ID}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hel\n\n`,
    tag: 'malformed',
  }),
  endTags: ['stop', 'usage', 'final'],
  duplicableTags: ['start', 'stop', 'usage', 'final'],
  contentBeforeStart:
    'a Chat Completions stream has no event that opens the response: its first chunk (the role) is a content chunk like the others, so no order of them is refused',
};
