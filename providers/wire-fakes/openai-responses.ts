/**
 * The OpenAI Responses API on the wire: `POST /v1/responses`, SSE events named
 * after their `type`, each with a `sequence_number`; the response ends with
 * `response.completed`, `response.incomplete` or `response.failed`.
 */
import type { Frame, FrameTag } from './plan.ts';
import { sseFrame } from './plan.ts';
import type { ProtocolKit } from './protocol.ts';
import type { StreamErrorKind, TurnStop, TurnUsage, WireTurn } from './turn.ts';
import { UnsupportedOnWire, pieces, refuseCutCallWhole, refuseFunctionCallFinish, refuseLimitAfterWholeCall } from './turn.ts';
import { OPENAI_INVALID_PROMPT_MESSAGE, OPENAI_TPM_MESSAGE, UNTYPED_ERROR_MESSAGE, openAIErrorAnswer } from './openai-chat.ts';

const MODEL = 'gpt-4.1-2025-04-14';
const RESPONSE_ID = 'resp_wirefake000000000000000001';

export const OPENAI_RESPONSES_OVERFLOW_MESSAGE = 'Your input exceeds the context window of this model. Please adjust your input and try again.';

/** The final status and incomplete reason for a turn's stop. */
function ending(turn: WireTurn): { status: 'completed' | 'incomplete'; reason?: string } {
  const stop: TurnStop = turn.stop;
  if (stop === 'tool_use' && !turn.blocks.some((b) => b.type === 'tool_call'))
    throw new UnsupportedOnWire(
      'the OpenAI Responses API has no stop reason that says "tool use": a completed response is told a call by its function_call items, so one with none is a reply',
    );
  if (typeof stop === 'object') return { status: 'incomplete', reason: stop.unknown };
  switch (stop) {
    case 'end':
    case 'stop_sequence':
    case 'tool_use':
    case 'refusal':
      return { status: 'completed' };
    case 'max_tokens':
      return { status: 'incomplete', reason: 'max_output_tokens' };
    case 'content_filter':
      return { status: 'incomplete', reason: 'content_filter' };
    case 'overflow':
      throw new UnsupportedOnWire(
        'the OpenAI Responses API has no ending for a context window filled during generation: it rejects the request up front, or ends incomplete with max_output_tokens',
      );
    case 'missing':
      throw new UnsupportedOnWire(
        'the OpenAI Responses API has no stop reason to leave out: its final event (response.completed, response.incomplete, response.failed) is the ending',
      );
  }
}

function usage(turn: WireTurn) {
  if (turn.usage.cacheWrite) throw new UnsupportedOnWire('OpenAI reports no cache-write tokens: its usage cannot say them');
  return {
    input_tokens: turn.usage.input,
    input_tokens_details: { cached_tokens: turn.usage.cacheRead ?? 0 },
    output_tokens: turn.usage.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: turn.usage.input + turn.usage.output,
  };
}

function responseObject(turn: WireTurn, status: string, output: unknown[], extra: Record<string, unknown> = {}) {
  return {
    id: RESPONSE_ID,
    object: 'response',
    created_at: 1_760_000_000,
    status,
    error: null,
    incomplete_details: null,
    model: turn.model ?? MODEL,
    output,
    parallel_tool_calls: true,
    store: false,
    tool_choice: 'auto',
    tools: [],
    usage: null,
    ...extra,
  };
}

/** A message item's content: its text, and (`nullTextPart`) a part whose text is null. */
function messageContent(turn: WireTurn, text: string): unknown[] {
  const part = { type: 'output_text', text, annotations: [], logprobs: [] };
  return turn.nullTextPart ? [part, { type: 'output_text', text: null, annotations: [], logprobs: [] }] : [part];
}

/** Output items as they stand at the end, for `response.completed` and complete bodies. */
function outputItems(turn: WireTurn, cutLastCall: boolean): unknown[] {
  const items: unknown[] = [];
  turn.blocks.forEach((block, i) => {
    if (block.type === 'text') {
      items.push({
        id: `msg_wirefake${i}`,
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: messageContent(turn, block.text),
      });
    } else {
      const cut = cutLastCall && i === turn.blocks.length - 1;
      items.push({
        id: `fc_wirefake${i}`,
        type: 'function_call',
        status: cut ? (turn.cutCallStatus ?? 'incomplete') : 'completed',
        call_id: block.id,
        name: block.name,
        arguments: block.args,
      });
    }
  });
  if (turn.stop === 'refusal') {
    items.push({
      id: `msg_wirefake${turn.blocks.length}`,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'refusal', refusal: turn.refusal?.text ?? "I'm sorry, I can't help with that." }],
    });
  }
  return items;
}

/** An event with no `item_id`, its item (if any) with no `id`: the item is told by `output_index` alone. */
function withoutIds(data: Record<string, unknown>): Record<string, unknown> {
  const { item_id: _itemId, ...rest } = data;
  if (typeof rest.item !== 'object' || rest.item === null) return rest;
  const { id: _id, ...item } = rest.item as Record<string, unknown>;
  return { ...rest, item };
}

/** An event that names its item by `item_id` with no `output_index`; the item events (which carry no `item_id`) keep theirs. */
function byItemIdAlone(data: Record<string, unknown>): Record<string, unknown> {
  if (!('item_id' in data)) return data;
  const { output_index: _outputIndex, ...rest } = data;
  return rest;
}

function streamFrames(turn: WireTurn): Frame[] {
  if (turn.bodyWithoutStatus)
    throw new UnsupportedOnWire(
      'an OpenAI Responses stream ends with a final event whose type says the ending (the final_event_without_status cases leave its status out); the complete-body harness runs this case',
    );
  refuseCutCallWhole(turn, 'OpenAI Responses');
  refuseLimitAfterWholeCall(turn, 'OpenAI Responses');
  refuseFunctionCallFinish(turn, 'OpenAI Responses');
  const end = ending(turn);
  const frames: Frame[] = [];
  let seq = 0;
  const push = (type: string, data: Record<string, unknown>, tag: FrameTag) =>
    frames.push(
      sseFrame(
        type,
        { type, sequence_number: seq++, ...(turn.withoutItemIds ? withoutIds(data) : turn.deltasByItemIdAlone ? byItemIdAlone(data) : data) },
        tag,
      ),
    );

  push('response.created', { response: responseObject(turn, 'in_progress', []) }, 'start');
  push('response.in_progress', { response: responseObject(turn, 'in_progress', []) }, 'start');
  const cutLastCall = turn.stop === 'max_tokens' && turn.blocks.at(-1)?.type === 'tool_call';

  turn.blocks.forEach((block, output_index) => {
    if (turn.outputOnlyInFinal) return; // no item events: the final response object carries the output
    if (block.type === 'text') {
      const item_id = `msg_wirefake${output_index}`;
      push(
        'response.output_item.added',
        { output_index, item: { id: item_id, type: 'message', status: 'in_progress', role: 'assistant', content: [] } },
        'block_start',
      );
      push('response.content_part.added', { item_id, output_index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }, 'other');
      for (const delta of pieces(block.text)) {
        push('response.output_text.delta', { item_id, output_index, content_index: 0, delta, logprobs: [] }, 'text_delta');
      }
      // Arguments for a message item, which cannot hold them.
      if (turn.strayDeltas) {
        push('response.function_call_arguments.delta', { item_id, output_index, delta: '{"stray":' }, 'other');
        push('response.function_call_arguments.done', { item_id, output_index, arguments: '{"stray":1}' }, 'other');
      }
      push('response.output_text.done', { item_id, output_index, content_index: 0, text: block.text, logprobs: [] }, 'other');
      push(
        'response.content_part.done',
        { item_id, output_index, content_index: 0, part: { type: 'output_text', text: block.text, annotations: [] } },
        'other',
      );
      push(
        'response.output_item.done',
        {
          output_index,
          item: {
            id: item_id,
            type: 'message',
            status: 'completed',
            role: 'assistant',
            content: messageContent(turn, block.text),
          },
        },
        'block_stop',
      );
      return;
    }
    const item_id = `fc_wirefake${output_index}`;
    push(
      'response.output_item.added',
      { output_index, item: { id: item_id, type: 'function_call', status: 'in_progress', call_id: block.id, name: block.name, arguments: '' } },
      'block_start',
    );
    for (const delta of block.args && !turn.argumentsOnlyInDone && !turn.argumentsOnlyInFinishedItem ? pieces(block.args) : []) {
      push('response.function_call_arguments.delta', { item_id, output_index, delta }, 'args_delta');
    }
    // Text for a function_call item, which cannot hold it.
    if (turn.strayDeltas) push('response.output_text.delta', { item_id, output_index, content_index: 0, delta: 'stray text', logprobs: [] }, 'other');
    if (cutLastCall && output_index === turn.blocks.length - 1) {
      // Cut by the token limit: never done, or closed as incomplete with its arguments so far.
      if (turn.cutCallDoneIncomplete) {
        push(
          'response.output_item.done',
          { output_index, item: { id: item_id, type: 'function_call', status: 'incomplete', call_id: block.id, name: block.name, arguments: block.args } },
          'block_stop',
        );
      }
      return;
    }
    if (!turn.argumentsOnlyInFinishedItem) push('response.function_call_arguments.done', { item_id, output_index, arguments: block.args }, 'other');
    push(
      'response.output_item.done',
      {
        output_index,
        item: {
          id: item_id,
          type: 'function_call',
          status: 'completed',
          call_id: block.id,
          name: block.name,
          ...(turn.argumentsOnlyInDone ? {} : { arguments: block.args }),
        },
      },
      'block_stop',
    );
  });

  // Events naming an item no output_item.added announced (past every item the turn has), as a proxy that renumbers items may send them.
  if (turn.strayDeltas && !turn.outputOnlyInFinal) {
    const output_index = turn.blocks.length + 1;
    const item_id = 'fc_wirefake_unannounced';
    push('response.output_text.delta', { item_id, output_index, content_index: 0, delta: 'stray text', logprobs: [] }, 'other');
    push('response.function_call_arguments.delta', { item_id, output_index, delta: '{"stray":' }, 'other');
    push('response.function_call_arguments.done', { item_id, output_index, arguments: '{"stray":1}' }, 'other');
  }

  if (turn.stop === 'refusal' && !turn.outputOnlyInFinal) {
    const output_index = turn.blocks.length;
    const item_id = `msg_wirefake${output_index}`;
    const refusal = turn.refusal?.text ?? "I'm sorry, I can't help with that.";
    push(
      'response.output_item.added',
      { output_index, item: { id: item_id, type: 'message', status: 'in_progress', role: 'assistant', content: [] } },
      'block_start',
    );
    push('response.content_part.added', { item_id, output_index, content_index: 0, part: { type: 'refusal', refusal: '' } }, 'other');
    for (const delta of pieces(refusal)) {
      push('response.refusal.delta', { item_id, output_index, content_index: 0, delta }, 'refusal_delta');
    }
    push('response.refusal.done', { item_id, output_index, content_index: 0, refusal }, 'other');
    push(
      'response.output_item.done',
      { output_index, item: { id: item_id, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'refusal', refusal }] } },
      'block_stop',
    );
  }

  const { status: _status, ...statusless } = responseObject(turn, end.status, outputItems(turn, cutLastCall), {
    usage: usage(turn),
    ...(end.reason ? { incomplete_details: { reason: end.reason } } : {}),
  });
  const status = turn.finalStatus ?? end.status;
  const final = turn.finalWithoutStatus ? statusless : { ...statusless, status };
  push(status === 'completed' ? 'response.completed' : 'response.incomplete', { response: final }, 'final');
  return frames;
}

function completeBody(turn: WireTurn): unknown {
  refuseCutCallWhole(turn, 'OpenAI Responses');
  refuseLimitAfterWholeCall(turn, 'OpenAI Responses');
  refuseFunctionCallFinish(turn, 'OpenAI Responses');
  if (turn.finalWithoutStatus)
    throw new UnsupportedOnWire(
      'a complete OpenAI Responses body has no final event: its status is its only ending, and without it nothing says how it ended; the streaming harness runs this case',
    );
  const end = ending(turn);
  const body = responseObject(turn, turn.finalStatus ?? end.status, outputItems(turn, turn.stop === 'max_tokens' && turn.blocks.at(-1)?.type === 'tool_call'), {
    usage: usage(turn),
    ...(end.reason ? { incomplete_details: { reason: end.reason } } : {}),
  });
  if (!turn.bodyWithoutStatus) return body;
  const { status: _status, ...statusless } = body;
  return statusless;
}

/**
 * An `error` event in both shapes the API sends: the fields nested under
 * `error` (as the recorded streams carry them) for an overload, and top-level
 * `code`, `message`, `param` (as the API reference documents the event) for a
 * rate limit — there the code alone says what failed.
 */
function errorEventFrame(kind: StreamErrorKind): Frame {
  if (kind === 'request_timeout') throw new UnsupportedOnWire('OpenAI documents no timeout error inside a Responses stream');
  if (kind === 'overloaded') {
    return sseFrame(
      'error',
      {
        type: 'error',
        sequence_number: 9_999,
        error: { type: 'server_error', code: 'server_error', message: 'The server is overloaded or not ready yet.', param: null },
      },
      'error',
    );
  }
  if (kind === 'untyped') {
    return sseFrame('error', { type: 'error', sequence_number: 9_999, code: null, message: UNTYPED_ERROR_MESSAGE, param: null }, 'error');
  }
  if (kind === 'rate_limited_by_type') {
    // Nested under `error`, its type said and its code null: only the type says a rate limit.
    return sseFrame(
      'error',
      { type: 'error', sequence_number: 9_999, error: { type: 'tokens', code: null, message: OPENAI_TPM_MESSAGE, param: null } },
      'error',
    );
  }
  const { error } = openAIErrorAnswer(kind, OPENAI_RESPONSES_OVERFLOW_MESSAGE, 'input').body as {
    error: { message: string; code: string | null; param: string | null };
  };
  return sseFrame('error', { type: 'error', sequence_number: 9_999, code: error.code, message: error.message, param: error.param }, 'error');
}

/**
 * A `response.failed` ending: the error in `response.error`, with the code the API gives it
 * (`rate_limit_exceeded`, `server_error`). For `rate_limited_by_type`, its type (`tokens`) and
 * no code: the API's own ResponseError has a code and no type; a compatible server that copies
 * Chat's error object into it sends the type.
 */
function failedResponseFrame(kind: StreamErrorKind, used?: TurnUsage): Frame {
  if (kind === 'request_timeout') throw new UnsupportedOnWire('OpenAI documents no timeout failure of a Responses response');
  if (kind === 'auth') throw new UnsupportedOnWire("OpenAI's documented ResponseError codes name no refused key: a key is refused before the response");
  const error =
    kind === 'rate_limited_by_type'
      ? { type: 'tokens', code: null, message: OPENAI_TPM_MESSAGE }
      : kind === 'untyped'
        ? { message: UNTYPED_ERROR_MESSAGE }
        : kind === 'overloaded'
          ? { code: 'server_error', message: 'The server is overloaded or not ready yet.' }
          : kind === 'overflow'
            ? { code: 'context_length_exceeded', message: OPENAI_RESPONSES_OVERFLOW_MESSAGE }
            : kind === 'invalid_request'
              ? { code: 'invalid_prompt', message: OPENAI_INVALID_PROMPT_MESSAGE }
              : { code: 'rate_limit_exceeded', message: OPENAI_TPM_MESSAGE };
  const turn: WireTurn = { blocks: [], stop: 'end', usage: used ?? { input: 0, output: 0 } };
  const extra = used === undefined ? { error } : { error, usage: usage(turn) };
  return sseFrame('response.failed', { type: 'response.failed', sequence_number: 9_999, response: responseObject(turn, 'failed', [], extra) }, 'error');
}

export const openAIResponsesWire: ProtocolKit = {
  provider: 'openai-responses',
  path: '/v1/responses',
  streamFrames,
  completeBody,
  answerKey: 'output',
  errorAnswer: (kind, status) => openAIErrorAnswer(kind, OPENAI_RESPONSES_OVERFLOW_MESSAGE, 'input', status),
  errorEventFrame,
  failedResponseFrame,
  malformedFrame: () => ({
    text: 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":3,"delta":"Hel\n\n',
    tag: 'malformed',
  }),
  endTags: ['final'],
  // Every event carries a sequence number, so any of them may arrive twice.
  duplicableTags: ['start', 'block_start', 'text_delta', 'args_delta', 'refusal_delta', 'block_stop', 'other', 'final'],
  contentBeforeStart:
    'the Responses adapter reads a first output item (response.output_item.added) as the start of the response, so content before response.created is read, not refused; only the Anthropic stream must open with its start event',
};
