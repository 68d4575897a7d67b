/**
 * A model turn described once, provider-neutrally, so each provider's protocol
 * module can write it in its own wire format.
 */
export type TurnBlock =
  | { readonly type: 'text'; readonly text: string }
  /** `args` is the argument text as the model writes it (may be cut short). */
  | { readonly type: 'tool_call'; readonly id: string; readonly name: string; readonly args: string };

export type TurnStop =
  | 'end'
  /**
   * A stop sequence of the request ended the output: a whole answer. Anthropic
   * says `stop_sequence` (and which one); OpenAI does not tell it from a natural
   * end (`stop`, `completed`). loopgate sends none itself, but a gateway may add them.
   */
  | 'stop_sequence'
  | 'tool_use'
  | 'max_tokens'
  | 'refusal'
  /** The provider's content filter cut the output (OpenAI's `content_filter`; Anthropic has none: it refuses). */
  | 'content_filter'
  /** The context window filled during generation. */
  | 'overflow'
  /**
   * No stop reason at all: the stream's stop event (or the complete body) says
   * nothing about how the response ended — what a proxy or gateway that drops
   * the field sends. Nothing says the answer is whole.
   */
  | 'missing'
  | { readonly unknown: string };

export interface TurnUsage {
  /** Every input token of the request, cached ones included (each protocol splits it as its provider does). */
  readonly input: number;
  readonly output: number;
  readonly cacheRead?: number;
  /**
   * Of input, tokens written to the prompt cache. Anthropic reports them apart
   * (cache_creation_input_tokens); OpenAI reports none, so its fakes cannot say them.
   */
  readonly cacheWrite?: number;
}

export interface WireTurn {
  readonly blocks: readonly TurnBlock[];
  readonly stop: TurnStop;
  readonly usage: TurnUsage;
  /** For `refusal`: the refusal text (OpenAI) and details (Anthropic stop_details). */
  readonly refusal?: { readonly text?: string; readonly details?: unknown };
  readonly model?: string;
  /**
   * Parallel calls' argument chunks interleaved by index (call 0's first chunk,
   * call 1's first chunk, …), as Chat Completions may stream them. Protocols whose
   * output items arrive one after another ignore it.
   */
  readonly interleaved?: boolean;
  /**
   * Each call's first chunk (index, id, name) carries the first piece of its
   * arguments too, as OpenAI-compatible servers (vLLM, Ollama, LiteLLM) stream
   * Chat Completions calls; the real API sends it with empty arguments.
   * Protocols that open a call without argument text ignore it.
   */
  readonly argsInFirstChunk?: boolean;
  /**
   * Each tool call sent whole in one chunk (id, name, all its arguments) with no
   * `index`, as some OpenAI-compatible servers stream Chat Completions calls.
   * Protocols that always say which item a delta belongs to ignore it.
   */
  readonly unindexed?: boolean;
  /**
   * The status the OpenAI Responses API gives, in the response's final output,
   * a tool call the token limit cut (`max_tokens`, the call last):
   * `incomplete` (the default), or `in_progress` — an item it never finished.
   * Either way the call is not finished, even if its arguments so far parse.
   * Protocols with no status per call cannot say it (UnsupportedOnWire).
   */
  readonly cutCallStatus?: 'incomplete' | 'in_progress';
  /**
   * OpenAI Responses stream: the call the token limit cut (`max_tokens`, the
   * call last) is closed by a `response.output_item.done` whose item says
   * `status: "incomplete"`, with its arguments so far, before the final event
   * (as a Responses server that closes every item it opened sends it; without
   * the knob the cut call's item is never done). The call is not finished, even
   * if its arguments so far parse. Complete bodies say the status in the final
   * output as usual; protocols with no status per call cannot say it
   * (UnsupportedOnWire).
   */
  readonly cutCallDoneIncomplete?: boolean;
  /**
   * The call the token limit cut (`max_tokens`, the call last) comes as a whole
   * object whose arguments parse, as only a complete Anthropic Messages body can
   * give it: a `tool_use`'s `input` is an object there, so a cut cannot be told
   * from it. Streams send arguments as JSON text and OpenAI as a string, where a
   * cut shows in the arguments; they cannot say it (UnsupportedOnWire).
   */
  readonly cutCallWhole?: boolean;
  /**
   * The OpenAI Responses stream's final event (`response.completed`,
   * `response.incomplete`) carries a response object with no `status` field, as
   * a gateway that re-serializes the stream may send it: the event's type alone
   * says how the response ended. Protocols whose ending is the stop reason itself
   * (`missing` leaves it out) cannot say it (UnsupportedOnWire).
   */
  readonly finalWithoutStatus?: boolean;
  /**
   * OpenAI Responses: the response's final `status` is this, not what the stop gives: one that is neither
   * completed, incomplete nor failed (`cancelled`, as a background response cancelled ends; `queued` or
   * `in_progress`, as a gateway that hands on a response before it finished sends it). Nothing then says the
   * answer is whole. A stream ends with `response.incomplete`. Protocols without a response status cannot say
   * it (UnsupportedOnWire).
   */
  readonly finalStatus?: string;
  /**
   * OpenAI Responses, a complete body: the response object has no `status` field (a gateway that re-serializes the
   * body leaves it out). A complete body has no final event, so nothing then says how the response ended. A stream's
   * final event says it by its type (`finalWithoutStatus`); protocols without a response status cannot say it
   * (UnsupportedOnWire).
   */
  readonly bodyWithoutStatus?: boolean;
  /**
   * Chat Completions: a turn that stops for tool use ends with `finish_reason` `function_call` (the
   * deprecated functions API's reason, which OpenAI-compatible servers may still send with `tool_calls`)
   * instead of `tool_calls`. Other protocols have no such reason (UnsupportedOnWire).
   */
  readonly functionCallFinish?: boolean;
  /**
   * Chat Completions: each call's first chunk carries its index and id but no
   * function name; the name follows in the call's next chunk (as some
   * OpenAI-compatible servers stream it). Protocols that name a call in the
   * event that opens it ignore it.
   */
  readonly lateCallNames?: boolean;
  /**
   * Chat Completions stream: each call's first chunk carries its index and
   * function name but no id; the id follows in the call's next chunk (the
   * mirror of `lateCallNames`, as a compatible server that writes a call's
   * fields as they are ready may stream it). Complete bodies and protocols that
   * open a call with its id in one event send the turn as usual.
   */
  readonly lateCallIds?: boolean;
  /**
   * Chat Completions stream: each of a call's fields comes in a chunk of its own, as a compatible server that
   * writes a call's fields as they are ready may stream it: its index and id, then its index and type (no
   * `function` object at all), then its function name, then its arguments. Complete bodies and the other
   * protocols send the turn as usual.
   */
  readonly callFieldsOnePerChunk?: boolean;
  /**
   * Chat Completions stream: no chunk of a call carries its id (its first has
   * the index and function name, the rest its arguments), as a compatible
   * server that omits call ids streams it. Complete bodies and the other
   * protocols send the turn as usual.
   */
  readonly noCallIds?: boolean;
  /**
   * With stop `missing`: a complete Messages body carries `stop_reason: null`
   * instead of leaving the field out (a gateway that writes the field with no
   * value, as a stream's `message_start` carries it). Streams send the turn as
   * usual; Chat writes `finish_reason: null` for a missing stop already, and the
   * Responses API has no stop reason to leave out.
   */
  readonly nullStopReason?: boolean;
  /**
   * Chat Completions: the assistant's content comes as an array of typed parts,
   * not a string: a `thinking` part (its text in `thinking: [{type: "text", text}]`)
   * then a `text` part, as Mistral's reasoning models (Magistral, and others
   * with `reasoning_effort`) send `message.content` in a complete body and
   * `delta.content` in each stream chunk. The thinking is not assistant content.
   * The other protocols send the turn as usual.
   */
  readonly contentAsParts?: boolean;
  /**
   * Chat Completions, with `contentAsParts`: each array of parts also holds a `null`
   * first (as a compatible server or a gateway that drops a part it cannot pass on
   * may leave it). Nothing of it is content. The other protocols send the turn as usual.
   */
  readonly nullContentPart?: boolean;
  /**
   * Chat Completions: every chunk carries `usage` too, the counts so far (as compatible servers with
   * continuous usage stats stream it; the finish chunk's are the totals), then the usage chunk with the
   * totals as usual. Usage on a chunk says nothing of the answer's end. The other protocols send the
   * turn as usual.
   */
  readonly usageOnEveryChunk?: boolean;
  /**
   * Chat Completions: every chunk that carries choice 0 (and the complete body)
   * also carries a second choice, `index: 1`, listed before it, with an answer
   * of its own (text, then `stop`). The spec names a choice by its `index`, not
   * by its place in `choices`: a server answering more than one completion (a
   * gateway's default `n`) may put several in one chunk, in any order. Only
   * choice 0 is the turn; loopgate requests one completion. The other
   * protocols send the turn as usual.
   */
  readonly otherChoiceFirst?: boolean;
  /**
   * The Anthropic stream's `message_start` carries no `usage` (as some
   * Messages-compatible servers send it): the counts come only with
   * `message_delta` at the end, which says the output tokens alone. Protocols
   * and bodies that report usage once, at the end, ignore it.
   */
  readonly usageOnlyAtEnd?: boolean;
  /**
   * The token limit (`max_tokens`) ended the turn just after its last call's
   * arguments were whole: the call was finished (an Anthropic stream's
   * `content_block_stop`, Chat's finish chunk) with complete JSON as its
   * argument text, so nothing of it was cut. Where a call comes as a whole
   * object (the complete Messages body) or carries a status of its own (OpenAI
   * Responses, where the limit leaves it `incomplete`), a call at the limit
   * cannot be told whole from cut: they cannot say it (UnsupportedOnWire).
   */
  readonly limitAfterWholeCall?: boolean;
  /**
   * OpenAI Responses: the output items carry no `id` and the events no `item_id`, so each
   * delta says its item by `output_index` alone (as some Responses-compatible servers
   * stream it). Protocols with no item ids ignore it.
   */
  readonly withoutItemIds?: boolean;
  /**
   * The Anthropic stream opens each text block with its first piece already in
   * `content_block_start` (`content_block.text`), the rest following as deltas,
   * as a Messages-compatible server or a gateway that re-serializes the stream
   * may send it. The Messages API itself opens every text block with `"text": ""`
   * (each recorded stream with a text block does). Protocols with no event that
   * opens a block with text in it send the turn as usual.
   */
  readonly textInBlockStart?: boolean;
  /**
   * The Anthropic stream opens each `tool_use` block with its whole input already in
   * `content_block_start` (`content_block.input`) and sends no `input_json_delta`, as a
   * Messages-compatible server or a gateway that re-serializes the stream may send it.
   * The Messages API itself opens every `tool_use` block with `"input": {}` and streams
   * the JSON. Protocols with no event that opens a call with its arguments in it send
   * the turn as usual.
   */
  readonly inputInBlockStart?: boolean;
  /**
   * With `inputInBlockStart`: each `tool_use` block still gets `input_json_delta`s,
   * but only of whitespace (` `, then a newline) — JSON text that adds nothing to
   * the input already given, as a gateway re-serializing the stream may pass on.
   */
  readonly blankInputDeltas?: boolean;
  /**
   * The Anthropic stream also sends, inside each block, a delta of the other
   * block type, which that block cannot hold: an `input_json_delta` in a text
   * block and a `text_delta` in a `tool_use` block (as a compatible server or a
   * proxy that renumbers blocks may). The Messages API never does (in every
   * recorded stream each delta matches its block). The OpenAI Responses stream
   * likewise sends a `function_call_arguments.delta` and a
   * `function_call_arguments.done` naming each message item
   * and an `output_text.delta` naming each function_call item, then one of
   * each of the three naming an item no `output_item.added` announced (no
   * recorded stream does either). Protocols whose deltas do not name a block of another type
   * send the turn as usual. With `thinkingFirst`, the Anthropic thinking block
   * also gets both (a `text_delta` and an `input_json_delta`), which a thinking
   * block cannot hold either.
   */
  readonly strayDeltas?: boolean;
  /**
   * OpenAI Responses: each event about part of an item (text, arguments,
   * content parts) names its item by `item_id` alone, with no `output_index`;
   * the events that add and finish an item keep theirs (as a Responses-compatible
   * server or a gateway that trims events may send them; every recorded stream
   * carries both). Protocols with no item ids ignore it.
   */
  readonly deltasByItemIdAlone?: boolean;
  /**
   * The model thought before it answered (extended thinking): an Anthropic
   * response opens with a `thinking` block (its text, then its signature), as
   * the recorded anthropic-fallback-mid-output stream does, in a stream and in
   * a complete body alike. Thinking is not assistant content. OpenAI Responses
   * gives reasoning as items of its own (the recorded issue-7082 body and
   * openai-issue-11239 stream carry them); Chat Completions gives none: both
   * send the turn as usual.
   */
  readonly thinkingFirst?: boolean;
  /**
   * OpenAI Responses stream: no event about an item (no `output_item.added`,
   * no deltas, no `output_item.done`); the final event's response object alone
   * carries the output, as a Responses-compatible server that does not stream
   * a model's output (it answers the streamed request with the opening and the
   * finished response) sends it. Protocols whose final event carries no output
   * (Anthropic's `message_stop`, Chat's `[DONE]`) and complete bodies send the
   * turn as usual.
   */
  readonly outputOnlyInFinal?: boolean;
  /**
   * OpenAI Chat Completions: every message and delta that refuses nothing
   * carries `"refusal": ""` rather than `null` (OpenAI writes null), as a
   * compatible server whose message type writes an empty string for none
   * sends it. The other protocols have no such field: they send the turn as usual.
   */
  readonly blankRefusal?: boolean;
  /**
   * OpenAI Chat Completions, complete body: each tool call comes with its `id`
   * and `type` but no `function` object (as a compatible server that drops a
   * call's function it could not write sends it). Streams and the other
   * protocols send the turn as usual.
   */
  readonly callsWithoutFunction?: boolean;
  /**
   * OpenAI Chat Completions stream: each call's chunks after its first carry
   * `"name": ""` in their function object, beside the argument piece (as a
   * compatible server whose delta type writes an empty string for none sends
   * it; OpenAI leaves the name out). The name is the first chunk's. Complete
   * bodies and the other protocols send the turn as usual.
   */
  readonly blankCallNames?: boolean;
  /**
   * OpenAI Responses: each message item's content also holds, after its text,
   * an `output_text` part whose `text` is `null` (as a compatible server that
   * writes an empty part so may; no recorded response does), in the stream's
   * finished item, the final output and a complete body. The other protocols
   * have no content parts: they send the turn as usual.
   */
  readonly nullTextPart?: boolean;
  /**
   * OpenAI Responses stream: a call's arguments come whole in its
   * `response.function_call_arguments.done` event alone: no argument deltas,
   * and the finished item (`output_item.done`) without an `arguments` field
   * (as a Responses-compatible server that does not stream arguments may send
   * it; the API itself streams them and repeats them in the finished item).
   * The other protocols, and complete bodies, send the turn as usual.
   */
  readonly argumentsOnlyInDone?: boolean;
  /**
   * OpenAI Responses stream: a call's arguments come whole in its finished
   * item (`output_item.done`) alone: no argument deltas and no
   * `response.function_call_arguments.done` event (as a Responses-compatible
   * server that does not stream arguments, or a gateway that drops the events it
   * does not pass on, may send it; the API itself sends all three). The other
   * protocols, and complete bodies, send the turn as usual.
   */
  readonly argumentsOnlyInFinishedItem?: boolean;
}

/** For protocols (or bodies) where a call last at the token limit cannot be told whole. */
export function refuseLimitAfterWholeCall(turn: WireTurn, api: string): void {
  if (!turn.limitAfterWholeCall) return;
  throw new UnsupportedOnWire(
    `${api} cannot tell a call last at the token limit whole from cut (a whole object, or a status of its own): only argument text whose JSON is complete can (streams, Chat Completions)`,
  );
}

/** For protocols (or bodies) with no final event whose type says the ending apart from a status field. */
export function refuseFinalStatus(turn: WireTurn, api: string): void {
  if (turn.finalStatus === undefined && !turn.bodyWithoutStatus) return;
  throw new UnsupportedOnWire(`${api} has no status of a response: its stop reason is the ending (an unknown one is unknown_stop_reason)`);
}

/** For protocols with no `finish_reason` `function_call` (all but Chat Completions). */
export function refuseFunctionCallFinish(turn: WireTurn, api: string): void {
  if (!turn.functionCallFinish) return;
  throw new UnsupportedOnWire(`${api} has no finish reason function_call: only Chat Completions sends it`);
}

export function refuseFinalWithoutStatus(turn: WireTurn, api: string): void {
  if (!turn.finalWithoutStatus) return;
  throw new UnsupportedOnWire(
    `${api} has no final event that says the ending apart from its status or stop reason (stop_reason_missing leaves that out); the streaming OpenAI Responses harness runs this case`,
  );
}

/** For protocols with no status per tool call: a turn that sets one cannot be sent. */
export function refuseCutCallStatus(turn: WireTurn, api: string): void {
  if (turn.cutCallStatus === undefined && !turn.cutCallDoneIncomplete) return;
  throw new UnsupportedOnWire(
    `${api} has no status per tool call: a call the token limit cut is told only by its arguments (the OpenAI Responses harness runs this case)`,
  );
}

/** For protocols (and streams) that give a call's arguments as text: a cut call cannot come as a whole object. */
export function refuseCutCallWhole(turn: WireTurn, api: string): void {
  if (!turn.cutCallWhole) return;
  throw new UnsupportedOnWire(
    `${api} gives a call's arguments as text, where a cut shows; only a complete Anthropic Messages body gives a cut call as a whole object (the anthropic-json harness runs this case)`,
  );
}

/** The kinds of failure a provider answers with an error body. */
/** `quota`: the account is out of credit or quota — a 429 on OpenAI (`insufficient_quota`), a 402 `billing_error` on Anthropic. */
/** `request_timeout`: HTTP 408, the server (or a gateway in front of it) gave up waiting for the request. */
/**
 * `request_too_large`: HTTP 413, the request body is over the provider's size limit (Anthropic's
 * `request_too_large`, 32 MB): a history too big to send, which only a smaller history fixes, as
 * an overflow. OpenAI documents no such answer (UnsupportedOnWire).
 */
/**
 * The HTTP errors a provider may answer with. `overflow_input_and_max_tokens`: the input fits, but not with the
 * `max_tokens` asked for on top (Anthropic's "input length and `max_tokens` exceed context limit"), its words in plain
 * text, without the Markdown backticks (as a gateway or proxy that relays the message as plain text gives it).
 * `overflow_by_code`: the input does not fit, told by OpenAI's error code `context_length_exceeded` alone, its words
 * not naming the context window (as an OpenAI-compatible server or gateway words it). Anthropic has no such code.
 * `overflow_by_words`: the input does not fit, told by OpenAI's words alone ("maximum context length"), the code
 * `null` (as a gateway that drops the code sends it). Anthropic tells every overflow by its words (`overflow`).
 * `invalid_request`: HTTP 400, the request refused as it stands (Anthropic's `invalid_request_error`; OpenAI's
 * `invalid_request_error` with code `invalid_prompt`, a prompt its safety system flagged): sending it again cannot help.
 */
export type ErrorKind =
  | 'overflow_input_and_max_tokens'
  | 'overflow'
  | 'overflow_by_code'
  | 'overflow_by_words'
  | 'auth'
  | 'forbidden'
  | 'rate_limited'
  | 'quota'
  | 'server_error'
  | 'overloaded'
  | 'request_timeout'
  | 'request_too_large'
  | 'invalid_request';

/**
 * The failures a provider may report inside a 200 stream, as an error event.
 * `request_timeout`: the provider gave up on the request mid-answer (Anthropic's
 * `timeout_error`); OpenAI documents no such event.
 * `rate_limited_by_type`: a rate limit told by the error's type alone: OpenAI's
 * rate-limit type (`tokens`, a tokens-per-minute limit) with `code: null`, as a
 * compatible server or a gateway that drops the code may send it (OpenAI itself
 * also sends `code: rate_limit_exceeded`; its server errors carry `code: null`).
 * Anthropic's rate limits are always told by their type: the same as `rate_limited`.
 * `overflow`: the input does not fit the context window, told in the stream:
 * OpenAI Responses' `response.failed` with `context_length_exceeded`, which the API
 * sends before any output; after output, the adapter keeps what was produced
 * (providers/README.md). The others report an overflow as a 400 before the stream.
 * `invalid_request`: the request refused as it stands, told in the stream by the
 * error's type or code alone (no HTTP status): Anthropic's error event of type
 * `invalid_request_error`, OpenAI's error of type `invalid_request_error` with code
 * `invalid_prompt` (Responses: an error event, or `response.failed` with that code,
 * one of its documented ResponseError codes).
 * `untyped`: an error that says only its message, no type and no code (an
 * OpenAI-compatible server's own error, its code a number if any): nothing but
 * the words tell what it was, and they say nothing known — a server error.
 * Anthropic types every error event, so it cannot send one.
 * `auth`: the key refused inside the stream, told by the error's type or code
 * alone (no HTTP status): Anthropic's error event of type `authentication_error`,
 * OpenAI's error with code `invalid_api_key` (Chat: type `invalid_request_error`),
 * as a gateway that opens the stream before the provider answered passes the
 * provider's refusal on. Retrying cannot help.
 */
export type StreamErrorKind = 'overloaded' | 'rate_limited' | 'rate_limited_by_type' | 'request_timeout' | 'overflow' | 'invalid_request' | 'untyped' | 'auth';

/** Thrown by a protocol module for a turn its provider cannot produce. */
export class UnsupportedOnWire extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedOnWire';
  }
}

/** Splits text into about `parts` pieces (at least one character each), as streams do. */
export function pieces(text: string, parts = 3): string[] {
  if (text.length <= 1) return [text];
  const size = Math.max(1, Math.ceil(text.length / parts));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
