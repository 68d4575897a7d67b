/**
 * The shared contract cases: what every ModelClient must do, for every way a
 * model call can end. Each case names the provider behaviour it needs (the
 * harness produces it) and checks the one result that comes back.
 *
 * Checks use node:assert, so the cases run under vitest and in the CLI alike.
 */
import assert from 'node:assert/strict';
import { exactSecretStream, type AssistantBlock, type ModelDelta, type ModelRequest, type ModelResult, type ToolSpec } from '../../src/kernel/index.ts';
import type { Behaviour, WireTurn } from './behaviours.ts';

export interface CallOutcome {
  readonly result: ModelResult;
  /** Deltas received before the call settled. */
  readonly deltas: readonly ModelDelta[];
  /** Whether the client under test streams (a client asked not to stream may send no deltas at all). */
  readonly streams: boolean;
  /** Requests the provider received, when the harness can tell. */
  readonly requestCount?: number;
  /** How many of them the client aborted (its side closed the connection) by the time the call settled and 20 ms more, when the harness can tell. */
  readonly requestsAborted?: number;
  /** The credentials the harness gave the client (`HarnessClient.secrets`); the runner has checked that no result or delta carries one. */
  readonly secrets: readonly string[];
  /** How the provider streamed a text block (`HarnessClient.pieces`), when the harness can tell. */
  readonly pieces?: (text: string) => readonly string[];
  /** What the last request said, read back from the wire, beside what the loop's request says (one line each), when the harness can tell. */
  readonly sent?: { readonly got: readonly string[]; readonly want: readonly string[] };
}

export type Drive =
  /** Aborts the call's signal when the first delta arrives. */
  | 'abort_on_first_delta'
  /** Passes a signal that is already aborted. */
  | 'abort_before_call'
  /** The delta listener throws on every delta. */
  | 'throwing_listener';

/** What a case may ask of the adapter it runs against. */
export interface ContractAdapterOptions {
  readonly defaultTimeoutMs?: number;
  /**
   * The client is given no credential (`apiKey: ''`), as for a gateway in front
   * of the provider that adds the key itself; nothing then passes through the
   * credential scrubber. A harness whose SDK refuses such a client skips the case.
   */
  readonly keyless?: boolean;
  /** Let the provider store the response (the Responses API's `store`); an adapter of a protocol without it ignores it. */
  readonly store?: boolean;
}

export interface ContractCase {
  readonly id: string;
  readonly title: string;
  readonly behaviour: Behaviour;
  readonly drive?: Drive;
  /** Changes to the base request this case needs. */
  readonly request?: (base: ModelRequest) => ModelRequest;
  /**
   * Options the client must be built with (an adapter's own default deadline):
   * run only by harnesses that build adapters (`adapterOptions`), a visible skip elsewhere.
   */
  readonly adapter?: ContractAdapterOptions;
  check(outcome: CallOutcome): void;
}

const weather: ToolSpec = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, required: ['city'] },
};
const time: ToolSpec = {
  name: 'get_time',
  description: 'Current time in a time zone.',
  inputSchema: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'] },
};
const listFiles: ToolSpec = { name: 'list_files', description: 'Lists the files in the workspace.', inputSchema: { type: 'object', properties: {} } };
const search: ToolSpec = {
  name: 'search',
  description: 'Searches the web.',
  inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
};

/** An agent's own tool that runs several of its tools at once, named as OpenAI's undeclared wrapper is. */
const parallelTool: ToolSpec = {
  name: 'parallel',
  description: 'Runs several tools at once.',
  inputSchema: {
    type: 'object',
    properties: {
      tool_uses: {
        type: 'array',
        items: { type: 'object', properties: { recipient_name: { type: 'string' }, parameters: { type: 'object' } }, required: ['recipient_name'] },
      },
    },
    required: ['tool_uses'],
  },
};
const PARALLEL_ARGS =
  '{"tool_uses":[{"recipient_name":"functions.get_weather","parameters":{"city":"Paris"}},{"recipient_name":"functions.get_time","parameters":{"timezone":"Europe/Paris"}}]}';

/** Every case starts from this request; a 10 s deadline keeps a broken client from hanging the suite. */
export const BASE_REQUEST: ModelRequest = {
  model: '',
  system: 'You are the loopgate contract suite.',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Run the contract case.' }] }],
  tools: [weather, time, listFiles, search],
  maxTokens: 256,
  timeoutMs: 10_000,
};

const USAGE = { input: 321, output: 45 } as const;

function expectType<T extends ModelResult['type']>(result: ModelResult, type: T): asserts result is Extract<ModelResult, { type: T }> {
  assert.equal(result.type, type, `expected a ${type} result, got ${JSON.stringify(result)}`);
}

function expectTransport(result: ModelResult, kind: string): Extract<ModelResult, { type: 'transport_error' }> {
  expectType(result, 'transport_error');
  assert.equal(result.kind, kind, `expected transport_error{${kind}}, got ${JSON.stringify(result)}`);
  // What went wrong, in words: the operator reads it in the turn's outcome and the trace.
  assert.ok(
    typeof result.message === 'string' && result.message.trim() !== '',
    `transport_error{${kind}} says nothing of what went wrong: ${JSON.stringify(result)}`,
  );
  return result;
}

/**
 * A network failure's message says what failed below the SDK, as the operator reads it: the cause the
 * fetch gave ("fetch failed", "closed") after the SDK's own words, and no error class name in front
 * ("Error: ", "TypeError: ", as `String(error)` writes it).
 */
function expectNetworkCause(error: Extract<ModelResult, { type: 'transport_error' }>): void {
  assert.doesNotMatch(error.message, /(^|: )[A-Z]\w*(Error|Exception): /, `the message leads with an error class name: ${error.message}`);
  assert.doesNotMatch(error.message, /(Connection error\.|terminated)$/, `the message drops the cause below the SDK's words: ${error.message}`);
  // "connection failed: " with nothing after it says where it failed, never what failed.
  assert.doesNotMatch(error.message, /:\s*$/, `the message ends where the cause should follow: ${JSON.stringify(error.message)}`);
}

function expectUsage(result: ModelResult, input: number, output: number): void {
  assert.ok(result.usage, `usage was sent but not reported: ${JSON.stringify(result)}`);
  assert.equal(result.usage.inputTokens, input, 'usage.inputTokens');
  assert.equal(result.usage.outputTokens, output, 'usage.outputTokens');
}

/** The request read back from the wire says what the loop's request says, line by line (when the harness can tell). */
function expectSentAsGiven(sent: CallOutcome['sent']): void {
  if (sent === undefined) return;
  const i = sent.want.findIndex((line, k) => sent.got[k] !== line);
  const at = i >= 0 ? i : sent.want.length;
  assert.deepEqual(
    sent.got,
    sent.want,
    `the request body read back from the wire differs from the loop's request at line ${at + 1}: sent ${JSON.stringify(sent.got[at] ?? '(nothing)')}, expected ${JSON.stringify(sent.want[at] ?? '(nothing)')}`,
  );
}

/** Stop reasons that end a turn (Anthropic's, OpenAI Chat's and Responses'): never what a tool-use stop is named. */
const ENDING_STOPS: ReadonlySet<string> = new Set([
  'end_turn',
  'stop',
  'stop_sequence',
  'completed',
  'max_tokens',
  'length',
  'incomplete',
  'refusal',
  'content_filter',
]);

/** The text of `timeout_lets_out_no_held_text`: its first piece on the wire fakes ends where their key may begin. */
const HELD_TEXT = 'Key: wire-fake was the old one';

function streamedText(deltas: readonly ModelDelta[]): string {
  return deltas.map((d) => (d.kind === 'text' ? d.text : '')).join('');
}

function callIds(content: readonly AssistantBlock[]): string[] {
  return content.flatMap((b) => (b.type === 'tool_call' ? [b.id] : []));
}

/** A call finished whole before the token limit: returned executable, the turn not flagged partial. */
const wholeCallKept: ContractCase['check'] = ({ result }) => {
  expectType(result, 'max_tokens');
  assert.equal(result.partialToolCall, false, 'the whole call is not flagged partial');
  assert.ok(callIds(result.content).includes('call_whole'), 'the whole call is in the content, executable');
  assert.equal(result.text, 'Let me look.');
};

const TEXT = 'The capital of France is Paris.';

/**
 * A streamed tool call one of whose two fields (its id, or its name) quotes the API key: the runner fails any
 * result or delta that carries it; the call arrives, and its start is streamed, the other field as sent.
 */
function streamedCallQuotingTheKey(id: string, title: string, quoted: 'id' | 'name'): ContractCase {
  return {
    id,
    title,
    behaviour: {
      kind: 'turn',
      quotesCredential: true,
      turn: {
        blocks: [
          quoted === 'id'
            ? { type: 'tool_call', id: 'call_{{credential}}', name: 'search', args: '{"query":"order status"}' }
            : { type: 'tool_call', id: 'call_plain', name: 'search_{{credential}}', args: '{"query":"order status"}' },
        ],
        stop: 'tool_use',
        usage: USAGE,
      },
    },
    check({ result, deltas, secrets, streams }) {
      // The runner has already failed any result or delta that carries a declared credential.
      assert.ok(secrets.length > 0, 'the harness declares no credential it gave the client (HarnessClient.secrets): nothing to keep out');
      expectType(result, 'tool_use');
      if (quoted === 'id')
        assert.deepEqual(
          result.calls.map((c) => ({ name: c.name, args: c.args })),
          [{ name: 'search', args: { query: 'order status' } }],
          'the tool call arrives',
        );
      else
        assert.deepEqual(
          result.calls.map((c) => ({ id: c.id, args: c.args })),
          [{ id: 'call_plain', args: { query: 'order status' } }],
          'the tool call arrives, its id as sent',
        );
      if (!streams) return;
      assert.deepEqual(
        deltas.flatMap((d) => (d.kind === 'tool_call_start' ? [quoted === 'id' ? d.name : d.id] : [])),
        [quoted === 'id' ? 'search' : 'call_plain'],
        quoted === 'id' ? 'the call is streamed as it starts' : 'the call is streamed as it starts, its id as sent',
      );
    },
  };
}

/** A weather and a time call, ids `call_<prefix>1` and `call_<prefix>2`, for the cases that stream two calls in some shape. */
function twoCalls(prefix: string): WireTurn['blocks'] {
  return [
    { type: 'tool_call', id: `call_${prefix}1`, name: 'get_weather', args: '{"city":"Lyon","unit":"celsius"}' },
    { type: 'tool_call', id: `call_${prefix}2`, name: 'get_time', args: '{"timezone":"Europe/Paris"}' },
  ];
}

/** The check of `twoCalls(prefix)`, however streamed: each call keeps its own whole arguments, in its deltas too. */
function twoCallsKept(prefix: string): ContractCase['check'] {
  return ({ result, deltas, streams }) => {
    expectType(result, 'tool_use');
    assert.deepEqual(
      result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
      [
        { id: `call_${prefix}1`, name: 'get_weather', args: { city: 'Lyon', unit: 'celsius' } },
        { id: `call_${prefix}2`, name: 'get_time', args: { timezone: 'Europe/Paris' } },
      ],
    );
    if (!streams && deltas.length === 0) return;
    const argsOf = (index: number) => deltas.map((d) => (d.kind === 'tool_args' && d.index === index ? d.json : '')).join('');
    assert.equal(argsOf(0), '{"city":"Lyon","unit":"celsius"}', "call 0's argument deltas, joined");
    assert.equal(argsOf(1), '{"timezone":"Europe/Paris"}', "call 1's argument deltas, joined");
  };
}

export const CONTRACT_CASES: readonly ContractCase[] = [
  {
    id: 'reply_text',
    title: 'a text reply ends as reply, with its text, streamed deltas and usage',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE } },
    check({ result, deltas, streams }) {
      expectType(result, 'reply');
      assert.equal(result.text, TEXT);
      assert.deepEqual(result.content, [{ type: 'text', text: TEXT }]);
      if (streams || deltas.length > 0) assert.equal(streamedText(deltas), TEXT, 'the text deltas add up to the text');
      assert.equal(typeof result.stopReason, 'string', 'the raw stop reason is kept');
      expectUsage(result, USAGE.input, USAGE.output);
    },
  },
  {
    id: 'usage_not_a_count',
    title:
      'usage the wire reports as no count (negative) is left out, one past the safe integers reads as the largest safe count (never as unsent: a budget fails closed), and the reply comes through',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: { input: -7, output: 1e300 } } },
    check({ result }) {
      expectType(result, 'reply');
      assert.equal(result.text, TEXT);
      for (const [key, value] of Object.entries(result.usage ?? {}))
        assert.ok(Number.isSafeInteger(value) && (value as number) >= 0, `usage.${key} is ${String(value)}: not a token count`);
      assert.equal(
        result.usage?.outputTokens,
        Number.MAX_SAFE_INTEGER,
        'output 1e300 is more than any safe integer holds: it reads as 2^53 − 1, not as unsent (which budgets would count as 0)',
      );
    },
  },
  {
    id: 'usage_with_no_count_at_all',
    title:
      'usage whose input and output counts are both no count (negative) is no usage, never a usage of 0 and 0 tokens (which a cost report would price at $0 rather than count the call as uncounted)',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: { input: -7, output: -3 } } },
    check({ result }) {
      expectType(result, 'reply');
      assert.equal(result.text, TEXT);
      // Where a stream also sent counts of its own (Anthropic's message_start says output_tokens: 1), those are kept.
      assert.ok(
        result.usage === undefined || result.usage.inputTokens + result.usage.outputTokens > 0,
        `no input or output count was sent, yet the usage claims the call used none: ${JSON.stringify(result.usage)}`,
      );
    },
  },
  {
    id: 'usage_input_without_output_count',
    title: 'usage whose input count is sent but whose output count is no count (negative) keeps the input count',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: { input: USAGE.input, output: -3 } } },
    check({ result }) {
      expectType(result, 'reply');
      assert.equal(result.text, TEXT);
      assert.equal(result.usage?.inputTokens, USAGE.input, `the input count sent was lost: ${JSON.stringify(result.usage)}`);
    },
  },
  {
    id: 'usage_only_at_end',
    title: 'a stream that reports usage only at its end (no counts when it opens, the output tokens alone when it stops) still counts its output tokens',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE, usageOnlyAtEnd: true } },
    check({ result }) {
      expectType(result, 'reply');
      assert.equal(result.text, TEXT);
      assert.ok(result.usage, `the output tokens were sent but no usage reported: ${JSON.stringify(result)}`);
      assert.equal(result.usage.outputTokens, USAGE.output, 'usage.outputTokens (a budget counts them)');
    },
  },
  {
    id: 'parallel_tool_calls',
    title: 'parallel tool calls come back in order, with ids, names, parsed arguments and text before them',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'text', text: 'Checking both.' },
          { type: 'tool_call', id: 'call_a1', name: 'get_weather', args: '{"city":"Paris","unit":"celsius"}' },
          { type: 'tool_call', id: 'call_b2', name: 'get_time', args: '{"timezone":"Europe/Paris"}' },
        ],
        stop: 'tool_use',
        usage: USAGE,
      },
    },
    check({ result, deltas, streams }) {
      expectType(result, 'tool_use');
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        [
          { id: 'call_a1', name: 'get_weather', args: { city: 'Paris', unit: 'celsius' } },
          { id: 'call_b2', name: 'get_time', args: { timezone: 'Europe/Paris' } },
        ],
      );
      assert.deepEqual(
        result.content.map((b) => (b.type === 'text' ? `text:${b.text}` : `call:${b.id}`)),
        ['text:Checking both.', 'call:call_a1', 'call:call_b2'],
        'content keeps the order the model produced',
      );
      assert.equal(result.text, 'Checking both.');
      expectUsage(result, USAGE.input, USAGE.output);
      if (!streams && deltas.length === 0) return;
      const starts = deltas.filter((d) => d.kind === 'tool_call_start');
      assert.deepEqual(
        starts.map((d) => (d.kind === 'tool_call_start' ? [d.index, d.id, d.name] : [])),
        [
          [0, 'call_a1', 'get_weather'],
          [1, 'call_b2', 'get_time'],
        ],
        'tool_call_start deltas, indexed by call',
      );
      const argsOf = (index: number) => deltas.map((d) => (d.kind === 'tool_args' && d.index === index ? d.json : '')).join('');
      assert.equal(argsOf(0), '{"city":"Paris","unit":"celsius"}');
      assert.equal(argsOf(1), '{"timezone":"Europe/Paris"}');
    },
  },
  {
    id: 'tool_calls_finished_as_function_call',
    title:
      "a tool call whose response ends with Chat Completions' deprecated finish_reason function_call (as OpenAI-compatible servers may still send it) ends as tool_use with the call, never as an unknown stop",
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [{ type: 'tool_call', id: 'call_f1', name: 'get_weather', args: '{"city":"Oslo"}' }],
        stop: 'tool_use',
        usage: USAGE,
        functionCallFinish: true,
      },
    },
    check({ result }) {
      expectType(result, 'tool_use');
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        [{ id: 'call_f1', name: 'get_weather', args: { city: 'Oslo' } }],
      );
      assert.equal(result.stopReason, 'function_call', 'the raw stop reason is kept');
    },
  },
  {
    id: 'text_after_tool_call',
    title: 'text the model writes after a tool call is kept, not only the text before it',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'text', text: 'Let me check.' },
          { type: 'tool_call', id: 'call_t1', name: 'get_weather', args: '{"city":"Rome"}' },
          { type: 'text', text: ' I will answer once it returns.' },
        ],
        stop: 'tool_use',
        usage: USAGE,
      },
    },
    check({ result }) {
      expectType(result, 'tool_use');
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        [{ id: 'call_t1', name: 'get_weather', args: { city: 'Rome' } }],
      );
      assert.equal(result.text, 'Let me check. I will answer once it returns.', 'both texts, in order');
      const contentText = result.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      assert.equal(contentText, result.text, 'the content holds the same text as result.text');
      expectUsage(result, USAGE.input, USAGE.output);
    },
  },
  {
    id: 'parallel_calls_interleaved',
    title:
      "parallel tool calls whose argument chunks arrive interleaved (every call's start, then a piece of each call's arguments in turn, as Chat Completions and compatible gateways may stream them): each call keeps its own arguments, by index",
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: twoCalls('i'),
        stop: 'tool_use',
        usage: USAGE,
        // Outside probe 53, MED-2: no case sent them so, and a client that put every piece into the latest call passed.
        // Protocols whose items arrive one after another send them so (the case holds for them as it is).
        interleaved: true,
      },
    },
    check: twoCallsKept('i'),
  },
  {
    id: 'call_args_in_first_chunk',
    title:
      'tool calls whose first chunk (index, id, name) carries the first piece of their arguments too, as OpenAI-compatible servers stream them: each call keeps its whole arguments, that piece first',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: twoCalls('f'),
        stop: 'tool_use',
        usage: USAGE,
        // Outside probe 58: a Chat adapter dropping the argument text of the chunk that carries the call's id was caught
        // by one case (parallel_calls_without_index, whole calls). Protocols that open a call without argument text
        // send them as usual (the case holds for them as it is).
        argsInFirstChunk: true,
      },
    },
    check: twoCallsKept('f'),
  },
  {
    id: 'parallel_calls_without_index',
    title: 'parallel tool calls streamed whole, one chunk each with no index (as some OpenAI-compatible servers send them), stay separate calls',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'tool_call', id: 'call_p1', name: 'get_weather', args: '{"city":"Lyon"}' },
          { type: 'tool_call', id: 'call_p2', name: 'get_time', args: '{"timezone":"Europe/Paris"}' },
        ],
        stop: 'tool_use',
        usage: USAGE,
        unindexed: true,
      },
    },
    check({ result }) {
      expectType(result, 'tool_use');
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        [
          { id: 'call_p1', name: 'get_weather', args: { city: 'Lyon' } },
          { id: 'call_p2', name: 'get_time', args: { timezone: 'Europe/Paris' } },
        ],
      );
      expectUsage(result, USAGE.input, USAGE.output);
    },
  },
  {
    id: 'no_tools_sends_no_tools_field',
    title:
      'an agent with no tools is sent no tools field, never an empty list (OpenAI-compatible servers such as vLLM, Azure OpenAI and DeepSeek refuse `tools: []` with a 400)',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: 'It is sunny.' }], stop: 'end', usage: USAGE } },
    request: (base) => ({ ...base, tools: [] }),
    check({ result, sent }) {
      expectType(result, 'reply');
      expectSentAsGiven(sent);
    },
  },
  {
    id: 'overflow_during_generation_says_so',
    title: 'the context window filling during generation is reported in words (the message the log and the trace carry), not as an empty message',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: 'A long answer that' }], stop: 'overflow', usage: USAGE } },
    check({ result }) {
      expectType(result, 'context_window_exceeded');
      assert.equal(result.at, 'generation');
      assert.match(result.message, /context window/i, `the overflow is not said in its message: ${JSON.stringify(result.message)}`);
    },
  },
  {
    id: 'invalid_request_event_in_stream',
    title:
      'an error event inside a 200 stream that refuses the request as it stands (Anthropic invalid_request_error, OpenAI invalid_prompt) ends as transport_error{invalid_request}, never a server error the loop would retry',
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'error_event', after: 'text_delta', error: 'invalid_request' },
    },
    check({ result }) {
      expectTransport(result, 'invalid_request');
    },
  },
  {
    id: 'invalid_request_failure_in_stream',
    title:
      'a response that ends failed mid-stream (OpenAI Responses response.failed) with code invalid_prompt ends as transport_error{invalid_request}, never a server error the loop would retry',
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'error_event', after: 'text_delta', error: 'invalid_request', asFailedResponse: true },
    },
    check({ result }) {
      expectTransport(result, 'invalid_request');
    },
  },
  {
    id: 'failed_response_keeps_its_usage',
    title:
      'a response that fills the context window mid-stream (OpenAI Responses response.failed, context_length_exceeded, after text) and reports the tokens it used keeps that usage on its context_window_exceeded: a budget counts the tokens the failed call cost',
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'error_event', after: 'text_delta', error: 'overflow', asFailedResponse: true, failedWithUsage: true },
    },
    check({ result }) {
      expectType(result, 'context_window_exceeded');
      assert.equal(result.at, 'generation');
      assert.ok(result.usage, `the failed response reported usage, but the result has none: ${JSON.stringify(result)}`);
      assert.equal(result.usage.inputTokens, USAGE.input, 'usage.inputTokens');
      assert.equal(result.usage.outputTokens, USAGE.output, 'usage.outputTokens');
    },
  },
  {
    id: 'empty_text_block_before_call',
    title: 'an empty text block before a tool call (its text block opened and closed with no text) leaves no text in the content and sends no empty text delta',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'text', text: '' },
          { type: 'tool_call', id: 'call_e1', name: 'get_weather', args: '{"city":"Oslo"}' },
        ],
        stop: 'tool_use',
        usage: USAGE,
      },
    },
    check({ result, deltas }) {
      expectType(result, 'tool_use');
      assert.deepEqual(
        result.content.map((b) => (b.type === 'text' ? `text:${b.text}` : `call:${b.id}`)),
        ['call:call_e1'],
        'no empty text block in the content',
      );
      assert.equal(result.text, '');
      const empty = deltas.filter((d) => d.kind === 'text' && d.text === '');
      assert.equal(empty.length, 0, `${empty.length} text delta(s) with no text: a streaming UI or trace is sent nothing to show`);
    },
  },
  {
    id: 'deltas_by_output_index_alone',
    title:
      'a stream whose items carry no id and whose deltas no item_id (each says its item by output_index alone) streams the text and the arguments as they come',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'text', text: 'Checking Oslo.' },
          { type: 'tool_call', id: 'call_o1', name: 'get_weather', args: '{"city":"Oslo"}' },
        ],
        stop: 'tool_use',
        usage: USAGE,
        withoutItemIds: true,
      },
    },
    check({ result, deltas, streams }) {
      expectType(result, 'tool_use');
      assert.equal(result.text, 'Checking Oslo.');
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        [{ id: 'call_o1', name: 'get_weather', args: { city: 'Oslo' } }],
      );
      if (!streams && deltas.length === 0) return;
      assert.equal(streamedText(deltas), 'Checking Oslo.', 'the text deltas add up to the text');
      const args = deltas.map((d) => (d.kind === 'tool_args' ? d.json : '')).join('');
      assert.equal(args, '{"city":"Oslo"}', "the argument deltas add up to the call's arguments");
    },
  },
  {
    id: 'deltas_by_item_id_alone',
    title:
      'a stream whose deltas say their item by item_id alone (no output_index, as a compatible server or a gateway that trims events may send them) streams the text and the arguments as they come',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'text', text: 'Checking Lima.' },
          { type: 'tool_call', id: 'call_i1', name: 'get_weather', args: '{"city":"Lima"}' },
        ],
        stop: 'tool_use',
        usage: USAGE,
        deltasByItemIdAlone: true,
      },
    },
    check({ result, deltas, streams }) {
      expectType(result, 'tool_use');
      assert.equal(result.text, 'Checking Lima.');
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        [{ id: 'call_i1', name: 'get_weather', args: { city: 'Lima' } }],
      );
      if (!streams && deltas.length === 0) return;
      assert.equal(streamedText(deltas), 'Checking Lima.', 'the text deltas add up to the text');
      const args = deltas.map((d) => (d.kind === 'tool_args' ? d.json : '')).join('');
      assert.equal(args, '{"city":"Lima"}', "the argument deltas add up to the call's arguments");
    },
  },
  {
    id: 'thinking_before_the_answer',
    title:
      "a response that opens with the model's thinking (Anthropic extended thinking: a thinking block and its signature) gives the text and the calls after it; the thinking is neither text nor a call",
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'text', text: 'Checking Oslo.' },
          { type: 'tool_call', id: 'call_th1', name: 'get_weather', args: '{"city":"Oslo"}' },
        ],
        stop: 'tool_use',
        usage: USAGE,
        thinkingFirst: true,
      },
    },
    check({ result, deltas, streams }) {
      expectType(result, 'tool_use');
      assert.equal(result.text, 'Checking Oslo.');
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        [{ id: 'call_th1', name: 'get_weather', args: { city: 'Oslo' } }],
      );
      assert.deepEqual(callIds(result.content), ['call_th1'], 'the content holds the one call, and nothing made of the thinking');
      if (streams || deltas.length > 0) assert.equal(streamedText(deltas), 'Checking Oslo.', 'the text deltas add up to the text, without the thinking');
    },
  },
  {
    id: 'output_only_in_final_event',
    title:
      'a stream whose final event alone carries the output (no item events, as a Responses-compatible server that does not stream a model answers a streamed request) gives that text and those calls',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'text', text: 'Checking Riga.' },
          { type: 'tool_call', id: 'call_f1', name: 'get_weather', args: '{"city":"Riga"}' },
        ],
        stop: 'tool_use',
        usage: USAGE,
        outputOnlyInFinal: true,
      },
    },
    check({ result, deltas }) {
      expectType(result, 'tool_use');
      assert.equal(result.text, 'Checking Riga.');
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        [{ id: 'call_f1', name: 'get_weather', args: { city: 'Riga' } }],
      );
      expectUsage(result, USAGE.input, USAGE.output);
      if (deltas.some((d) => d.kind === 'text')) assert.equal(streamedText(deltas), 'Checking Riga.', 'the text deltas add up to the text');
    },
  },
  {
    id: 'text_part_without_text',
    title: 'a message whose content also holds an output_text part with no text (`text: null`) gives the text of the other parts, nothing written for that one',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE, nullTextPart: true } },
    check({ result, deltas, streams }) {
      expectType(result, 'reply');
      assert.equal(result.text, TEXT);
      assert.deepEqual(result.content, [{ type: 'text', text: TEXT }]);
      if (streams || deltas.length > 0) assert.equal(streamedText(deltas), TEXT, 'the text deltas add up to the text');
    },
  },
  {
    id: 'arguments_only_in_their_done_event',
    title:
      "a stream that gives a call's arguments only in their done event (no argument deltas, the finished item without them) gives the call those arguments",
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'tool_call', id: 'call_d1', name: 'get_weather', args: '{"city":"Kyiv"}' },
          { type: 'tool_call', id: 'call_d2', name: 'get_time', args: '{"timezone":"Europe/Kyiv"}' },
        ],
        stop: 'tool_use',
        usage: USAGE,
        argumentsOnlyInDone: true,
      },
    },
    check({ result }) {
      expectType(result, 'tool_use');
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        [
          { id: 'call_d1', name: 'get_weather', args: { city: 'Kyiv' } },
          { id: 'call_d2', name: 'get_time', args: { timezone: 'Europe/Kyiv' } },
        ],
      );
    },
  },
  {
    id: 'arguments_only_in_the_finished_item',
    title:
      "a stream that gives a call's arguments only in its finished item (no argument deltas, no arguments done event) gives the call those arguments, not the empty ones it opened with",
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'tool_call', id: 'call_i1', name: 'get_weather', args: '{"city":"Tallinn"}' },
          { type: 'tool_call', id: 'call_i2', name: 'get_time', args: '{"timezone":"Europe/Tallinn"}' },
        ],
        stop: 'tool_use',
        usage: USAGE,
        argumentsOnlyInFinishedItem: true,
      },
    },
    check({ result }) {
      expectType(result, 'tool_use');
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        [
          { id: 'call_i1', name: 'get_weather', args: { city: 'Tallinn' } },
          { id: 'call_i2', name: 'get_time', args: { timezone: 'Europe/Tallinn' } },
        ],
      );
    },
  },
  {
    id: 'call_without_function_object',
    title:
      'a completion whose tool call has an id but no function object keeps the call, nameless (the loop tells the model no such tool exists), rather than failing the whole response',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [{ type: 'tool_call', id: 'call_nf', name: 'get_weather', args: '{"city":"Oslo"}' }],
        stop: 'tool_use',
        usage: USAGE,
        callsWithoutFunction: true,
      },
    },
    check({ result }) {
      expectType(result, 'tool_use');
      assert.deepEqual(
        result.calls.map((c) => c.id),
        ['call_nf'],
      );
      const [call] = result.calls;
      // Where the wire said the function, the call is as sent; where it did not, the call has no name.
      if (call!.name !== '') assert.deepEqual({ name: call!.name, args: call!.args }, { name: 'get_weather', args: { city: 'Oslo' } });
    },
  },
  {
    id: 'content_filter_with_blank_refusal_field',
    title:
      'a content filter\'s stop from a server that writes "refusal": "" for none ends as refusal whose text is what the model wrote before the filter, as with "refusal": null',
    behaviour: {
      kind: 'turn',
      turn: { blocks: [{ type: 'text', text: 'Here is how to' }], stop: 'content_filter', usage: USAGE, blankRefusal: true },
    },
    check({ result }) {
      expectType(result, 'refusal');
      assert.equal(result.text, 'Here is how to', 'a blank refusal field says no refusal text: the text is the output the filter cut');
      expectUsage(result, USAGE.input, USAGE.output);
    },
  },
  {
    id: 'declared_tool_named_parallel_kept',
    title:
      "a call of the agent's own tool named `parallel` (a name OpenAI's undeclared wrapper also uses) is that tool's call, its arguments as sent, not unwrapped",
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [{ type: 'tool_call', id: 'call_par', name: 'parallel', args: PARALLEL_ARGS }],
        stop: 'tool_use',
        usage: USAGE,
      },
    },
    request: (base) => ({ ...base, tools: [...base.tools, parallelTool] }),
    check({ result }) {
      expectType(result, 'tool_use');
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        [{ id: 'call_par', name: 'parallel', args: JSON.parse(PARALLEL_ARGS) }],
        'the declared parallel tool was called: its call must not be unwrapped',
      );
    },
  },
  {
    id: 'call_chunks_with_blank_names',
    title: 'a call whose later chunks say `"name": ""` (a compatible server that writes an empty string for none) keeps the name its first chunk gave',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [{ type: 'tool_call', id: 'call_w', name: 'get_weather', args: '{"city":"Paris","unit":"celsius"}' }],
        stop: 'tool_use',
        usage: USAGE,
        blankCallNames: true,
      },
    },
    check({ result }) {
      expectType(result, 'tool_use');
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        [{ id: 'call_w', name: 'get_weather', args: { city: 'Paris', unit: 'celsius' } }],
        'a blank name in a later chunk says nothing: the call keeps its name',
      );
    },
  },
  {
    id: 'parallel_wrapper_with_null_arguments_kept',
    title:
      "a call of OpenAI's undeclared wrapper (`multi_tool_use.parallel`) whose arguments are JSON null wraps nothing: it comes back as the call it is, not a failed call",
    behaviour: {
      kind: 'turn',
      turn: { blocks: [{ type: 'tool_call', id: 'call_wrap', name: 'multi_tool_use.parallel', args: 'null' }], stop: 'tool_use', usage: USAGE },
    },
    check({ result }) {
      expectType(result, 'tool_use');
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name })),
        [{ id: 'call_wrap', name: 'multi_tool_use.parallel' }],
        'nothing to unwrap: the call is kept (the loop tells the model no such tool exists)',
      );
    },
  },
  {
    id: 'parallel_wrapper_use_without_parameters_unwrapped',
    title:
      "a call of OpenAI's undeclared wrapper one of whose uses gives no `parameters` (a tool that takes none) is unwrapped with that call's arguments `{}`, never undefined; an adapter that does not unwrap keeps the wrapper as it is",
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          {
            type: 'tool_call',
            id: 'call_wrap',
            name: 'multi_tool_use.parallel',
            args: '{"tool_uses":[{"recipient_name":"functions.get_weather","parameters":{"city":"Paris"}},{"recipient_name":"functions.get_time"}]}',
          },
        ],
        stop: 'tool_use',
        usage: USAGE,
      },
    },
    check({ result }) {
      expectType(result, 'tool_use');
      const calls = result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args, rawArgs: c.rawArgs }));
      // Anthropic's adapter has no such wrapper to unwrap (mutation seed 51, parallel-wrapper.ts:22: the `{}` default
      // dropped gave get_time's call `args` and `rawArgs` undefined).
      if (calls.length === 1 && calls[0]!.name === 'multi_tool_use.parallel') return;
      assert.deepEqual(
        calls,
        [
          { id: 'call_wrap_0', name: 'get_weather', args: { city: 'Paris' }, rawArgs: '{"city":"Paris"}' },
          { id: 'call_wrap_1', name: 'get_time', args: {}, rawArgs: '{}' },
        ],
        'unwrapped: a use without parameters is a call with no arguments, {}',
      );
    },
  },
  {
    id: 'parallel_wrapper_with_an_empty_recipient_kept',
    title:
      "a call of OpenAI's undeclared wrapper one of whose uses names no tool (`recipient_name` empty) is not unwrapped in part: it comes back as the call it is, not a call of a tool named nothing",
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          {
            type: 'tool_call',
            id: 'call_wrap',
            name: 'multi_tool_use.parallel',
            args: '{"tool_uses":[{"recipient_name":"functions.get_weather","parameters":{"city":"Paris"}},{"recipient_name":"","parameters":{}}]}',
          },
        ],
        stop: 'tool_use',
        usage: USAGE,
      },
    },
    check({ result }) {
      expectType(result, 'tool_use');
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name })),
        [{ id: 'call_wrap', name: 'multi_tool_use.parallel' }],
        'a use without a tool name: the wrapper is kept whole (the loop tells the model no such tool exists)',
      );
    },
  },
  {
    id: 'empty_text_block_without_credential',
    title:
      'an empty text block before a tool call sends no empty text delta from a client given no key either (a gateway that adds the key itself), where no credential scrubber stands between the adapter and the listener; the call itself streams',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'text', text: '' },
          { type: 'tool_call', id: 'call_k1', name: 'get_weather', args: '{"city":"Oslo"}' },
        ],
        stop: 'tool_use',
        usage: USAGE,
      },
    },
    adapter: { keyless: true },
    check({ result, deltas, streams }) {
      expectType(result, 'tool_use');
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        [{ id: 'call_k1', name: 'get_weather', args: { city: 'Oslo' } }],
      );
      const empty = deltas.filter((d) => d.kind === 'text' && d.text === '');
      assert.equal(empty.length, 0, `${empty.length} text delta(s) with no text: a streaming UI or trace is sent nothing to show`);
      if (!streams) return;
      // Nothing held back by a scrubber either: the call's start and arguments reach the listener.
      assert.deepEqual(
        deltas.flatMap((d) => (d.kind === 'tool_call_start' ? [d.name] : [])),
        ['get_weather'],
        'the tool call is streamed as it starts',
      );
      assert.equal(deltas.flatMap((d) => (d.kind === 'tool_args' ? [d.json] : [])).join(''), '{"city":"Oslo"}', 'the streamed arguments arrive whole');
    },
  },
  {
    id: 'text_in_block_start',
    title:
      'text that comes in the event opening its block (an Anthropic content_block_start with text, as a compatible server or a re-serializing gateway may send it) is kept and streamed as text, before the deltas that follow it',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE, textInBlockStart: true } },
    check({ result, deltas, streams }) {
      expectType(result, 'reply');
      assert.equal(result.text, TEXT);
      assert.deepEqual(result.content, [{ type: 'text', text: TEXT }]);
      if (!streams && deltas.length === 0) return;
      const odd = deltas.filter((d) => d.kind !== 'text');
      assert.deepEqual(odd, [], 'a text reply streams text deltas only');
      assert.equal(streamedText(deltas), TEXT, 'the text deltas add up to the text, its first piece included');
    },
  },
  {
    id: 'delta_for_another_block_type',
    title:
      'a delta of the wrong type for its block (arguments inside a text block, text inside a tool call, as a compatible server or a proxy that renumbers blocks may send them) is ignored: the text, the call and the deltas are what the matching deltas say',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_call', id: 'call_s1', name: 'get_weather', args: '{"city":"Bern"}' },
        ],
        stop: 'tool_use',
        usage: USAGE,
        strayDeltas: true,
      },
    },
    check({ result, deltas, streams }) {
      expectType(result, 'tool_use');
      assert.equal(result.text, 'Checking.');
      assert.deepEqual(
        result.content.map((b) => (b.type === 'text' ? `text:${b.text}` : `call:${b.id}`)),
        ['text:Checking.', 'call:call_s1'],
        'content: the text, then the call',
      );
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        [{ id: 'call_s1', name: 'get_weather', args: { city: 'Bern' } }],
      );
      if (!streams && deltas.length === 0) return;
      assert.equal(streamedText(deltas), 'Checking.', 'the text deltas add up to the text, and nothing else');
      const started = new Set(deltas.flatMap((d) => (d.kind === 'tool_call_start' ? [d.index] : [])));
      const orphans = deltas.filter((d) => d.kind === 'tool_args' && !started.has(d.index));
      assert.deepEqual(orphans, [], 'argument deltas for a call that never started');
      assert.equal(deltas.map((d) => (d.kind === 'tool_args' ? d.json : '')).join(''), '{"city":"Bern"}', "the argument deltas add up to the call's arguments");
    },
  },
  {
    // Mutation seed 38, openai-chat/collect.ts: a later chunk of a call with no `function` object read as if it had one.
    id: 'call_fields_one_per_chunk',
    title:
      "parallel tool calls streamed a field a chunk (id, then type with no function object, then name, then arguments) keep each call's id, name and arguments",
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'tool_call', id: 'call_c1', name: 'get_weather', args: '{"city":"Nice"}' },
          { type: 'tool_call', id: 'call_c2', name: 'get_time', args: '{"timezone":"Europe/Paris"}' },
        ],
        stop: 'tool_use',
        usage: USAGE,
        callFieldsOnePerChunk: true,
      },
    },
    check({ result }) {
      expectType(result, 'tool_use');
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        [
          { id: 'call_c1', name: 'get_weather', args: { city: 'Nice' } },
          { id: 'call_c2', name: 'get_time', args: { timezone: 'Europe/Paris' } },
        ],
      );
    },
  },
  {
    id: 'call_named_after_its_first_chunk',
    title: "parallel tool calls whose names arrive in a chunk after the call's first (as some OpenAI-compatible servers stream them) keep those names",
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'tool_call', id: 'call_n1', name: 'get_weather', args: '{"city":"Nice"}' },
          { type: 'tool_call', id: 'call_n2', name: 'get_time', args: '{"timezone":"Europe/Paris"}' },
        ],
        stop: 'tool_use',
        usage: USAGE,
        lateCallNames: true,
      },
    },
    check({ result }) {
      expectType(result, 'tool_use');
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        [
          { id: 'call_n1', name: 'get_weather', args: { city: 'Nice' } },
          { id: 'call_n2', name: 'get_time', args: { timezone: 'Europe/Paris' } },
        ],
      );
    },
  },
  {
    id: 'tool_call_no_arguments',
    title: 'a tool call with no argument text at all has arguments {}',
    behaviour: {
      kind: 'turn',
      turn: { blocks: [{ type: 'tool_call', id: 'call_ls', name: 'list_files', args: '' }], stop: 'tool_use', usage: USAGE },
    },
    check({ result }) {
      expectType(result, 'tool_use');
      assert.equal(result.calls.length, 1);
      assert.equal(result.calls[0]!.name, 'list_files');
      assert.deepEqual(result.calls[0]!.args, {});
    },
  },
  {
    id: 'max_tokens_text',
    title: 'hitting the token limit in text ends as max_tokens, text kept, no partial call',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: 'Once upon a time, in a' }], stop: 'max_tokens', usage: USAGE } },
    check({ result }) {
      expectType(result, 'max_tokens');
      assert.equal(result.partialToolCall, false);
      assert.equal(result.text, 'Once upon a time, in a');
      expectUsage(result, USAGE.input, USAGE.output);
    },
  },
  {
    id: 'max_tokens_before_any_output',
    title:
      'hitting the token limit before any text or call (a tiny max_tokens, or a budget spent thinking) ends as max_tokens with empty content, no partial call, the usage kept',
    behaviour: { kind: 'turn', turn: { blocks: [], stop: 'max_tokens', usage: USAGE } },
    check({ result }) {
      expectType(result, 'max_tokens');
      assert.equal(result.partialToolCall, false);
      assert.deepEqual(result.content, []);
      expectUsage(result, USAGE.input, USAGE.output);
    },
  },
  {
    id: 'max_tokens_mid_tool_call',
    title: 'hitting the token limit inside a tool call flags the partial call and never returns it as executable',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_call', id: 'call_cut', name: 'search', args: '{"query":"weather in Par' },
        ],
        stop: 'max_tokens',
        usage: USAGE,
      },
    },
    check({ result }) {
      expectType(result, 'max_tokens');
      assert.equal(result.partialToolCall, true, 'the cut call is flagged');
      assert.ok(!callIds(result.content).includes('call_cut'), 'the cut call is not in the content');
      assert.equal(result.text, 'Let me look.');
      expectUsage(result, USAGE.input, USAGE.output);
    },
  },
  {
    id: 'max_tokens_mid_tool_call_in_progress',
    title: 'a call the token limit cut, left in progress, is partial even when its arguments so far parse',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_call', id: 'call_cut', name: 'search', args: '{"query":"weather in Paris"}' },
        ],
        stop: 'max_tokens',
        usage: USAGE,
        cutCallStatus: 'in_progress',
      },
    },
    check({ result }) {
      expectType(result, 'max_tokens');
      assert.equal(result.partialToolCall, true, 'the call the provider never finished is flagged');
      assert.ok(!callIds(result.content).includes('call_cut'), 'the unfinished call is not in the content');
      assert.equal(result.text, 'Let me look.');
    },
  },
  {
    id: 'max_tokens_mid_tool_call_closed_incomplete',
    title: 'a call the token limit cut, closed by its provider as incomplete, is partial even when its arguments so far parse',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_call', id: 'call_cut', name: 'search', args: '{"query":"weather in Paris"}' },
        ],
        stop: 'max_tokens',
        usage: USAGE,
        cutCallDoneIncomplete: true,
      },
    },
    check({ result }) {
      expectType(result, 'max_tokens');
      assert.equal(result.partialToolCall, true, 'the call its provider closed as incomplete is flagged');
      assert.ok(!callIds(result.content).includes('call_cut'), 'the incomplete call is not in the content');
      assert.equal(result.text, 'Let me look.');
    },
  },
  {
    id: 'max_tokens_cut_call_after_a_whole_one',
    title: 'when the token limit cuts the second of two calls, the first, which the model finished, is kept in the content; only the cut one is partial',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_call', id: 'call_whole', name: 'get_weather', args: '{"city":"Paris"}' },
          { type: 'tool_call', id: 'call_cut', name: 'search', args: '{"query":"weather in Par' },
        ],
        stop: 'max_tokens',
        usage: USAGE,
      },
    },
    check({ result }) {
      expectType(result, 'max_tokens');
      assert.equal(result.partialToolCall, true, 'the cut call is flagged');
      assert.deepEqual(callIds(result.content), ['call_whole'], 'the finished call is in the content, the cut one is not');
      assert.equal(result.text, 'Let me look.');
    },
  },
  {
    id: 'max_tokens_after_whole_call',
    title:
      'a tool call the model finished, whole, just before the token limit ended the turn is returned executable (nothing of it was cut), and the turn is not flagged partial',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_call', id: 'call_whole', name: 'search', args: '{"query":"weather in Paris"}' },
        ],
        stop: 'max_tokens',
        usage: USAGE,
        limitAfterWholeCall: true,
      },
    },
    check: wholeCallKept,
  },
  {
    id: 'max_tokens_after_call_input_in_block_start',
    title:
      'a tool call whose input came whole in the event opening its block (an Anthropic content_block_start with input, as a compatible server or a gateway may send it), finished before the token limit ended the turn, is returned executable, and the turn is not flagged partial',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_call', id: 'call_whole', name: 'search', args: '{"query":"weather in Paris"}' },
        ],
        stop: 'max_tokens',
        usage: USAGE,
        limitAfterWholeCall: true,
        inputInBlockStart: true,
      },
    },
    check: wholeCallKept,
  },
  {
    id: 'call_input_in_block_start_then_blank_deltas',
    title:
      'a tool call whose input came whole in the event opening its block, followed only by deltas of whitespace (a gateway re-serializing the stream), keeps that input: whitespace adds no JSON to it',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [{ type: 'tool_call', id: 'call_whole', name: 'search', args: '{"query":"weather in Paris"}' }],
        stop: 'tool_use',
        usage: USAGE,
        inputInBlockStart: true,
        blankInputDeltas: true,
      },
    },
    check({ result }) {
      expectType(result, 'tool_use');
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        [{ id: 'call_whole', name: 'search', args: { query: 'weather in Paris' } }],
      );
    },
  },
  {
    id: 'max_tokens_cut_call_given_whole',
    title:
      'a tool call last in a complete body the token limit ended is never executable, though it comes as a whole object (its input may hold only part of what the model meant)',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_call', id: 'call_cut', name: 'search', args: '{"query":"weather in Paris"}' },
        ],
        stop: 'max_tokens',
        usage: USAGE,
        cutCallWhole: true,
      },
    },
    check({ result }) {
      expectType(result, 'max_tokens');
      assert.equal(result.partialToolCall, true, 'the call the token limit may have cut is flagged');
      assert.ok(!callIds(result.content).includes('call_cut'), 'the call is not in the content');
      assert.equal(result.text, 'Let me look.');
    },
  },
  {
    id: 'refusal',
    title: 'a refusal ends as refusal, with usage',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [],
        stop: 'refusal',
        usage: USAGE,
        refusal: { text: "I can't help with that.", details: { type: 'refusal', category: 'cyber' } },
      },
    },
    check({ result, deltas, streams }) {
      expectType(result, 'refusal');
      assert.equal(typeof result.text, 'string');
      // OpenAI sends the refusal's words (a stream's refusal deltas, a body's refusal part); Anthropic says a refusal
      // by its stop reason alone, and the text is what the turn wrote: nothing here.
      assert.ok(["I can't help with that.", ''].includes(result.text), `the refusal's text is the provider's words, got ${JSON.stringify(result.text)}`);
      expectUsage(result, USAGE.input, USAGE.output);
      // A UI shows the refusal as it streams: the streamed text, joined, is the result's.
      if (streams) assert.equal(streamedText(deltas), result.text, 'the streamed text, joined, is the refusal as the result gives it');
    },
  },
  {
    id: 'stop_sequence_is_a_reply',
    title: 'output ended by a stop sequence (Anthropic stop_reason "stop_sequence"; OpenAI says stop) is a whole reply, with usage',
    behaviour: {
      kind: 'turn',
      turn: { blocks: [{ type: 'text', text: 'The order has shipped.' }], stop: 'stop_sequence', usage: USAGE },
    },
    check({ result }) {
      expectType(result, 'reply');
      assert.equal(result.text, 'The order has shipped.');
      expectUsage(result, USAGE.input, USAGE.output);
    },
  },
  {
    id: 'content_filter',
    title: "a content filter's stop ends as refusal, not a reply, with usage",
    behaviour: {
      kind: 'turn',
      turn: { blocks: [{ type: 'text', text: 'Here is how to' }], stop: 'content_filter', usage: USAGE },
    },
    check({ result }) {
      expectType(result, 'refusal');
      expectUsage(result, USAGE.input, USAGE.output);
    },
  },
  {
    id: 'history_sent_as_given',
    title:
      'the history goes out as the loop gave it: each call with its arguments, each result under its call id, in order, one that failed or may have run (unknown) marked so where the protocol marks it',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: 'Tomorrow it will rain.' }], stop: 'end', usage: USAGE } },
    request: (base) => ({
      ...base,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather and time in Paris?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me check both.' },
            { type: 'tool_call', id: 'call_w', name: 'get_weather', args: { unit: 'celsius', city: 'Paris', hourly: [9, 12], detail: { wind: true } } },
            { type: 'tool_call', id: 'call_t', name: 'get_time', args: { timezone: 'Europe/Paris' } },
            { type: 'tool_call', id: 'call_b', name: 'get_weather', args: { city: 'Lyon', unit: 'celsius' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', callId: 'call_w', status: 'ok', content: '{"temp":21,"sky":"clear"}' },
            { type: 'tool_result', callId: 'call_t', status: 'failed', content: 'Error: the time service is down' },
            // Timed out or cut off: it may have run (outside probe 68: the Messages API sent it without is_error).
            { type: 'tool_result', callId: 'call_b', status: 'unknown', content: 'INTERRUPTED: get_weather may have run; check before trying again' },
            { type: 'text', text: 'And tomorrow?' },
          ],
        },
      ],
    }),
    check({ result, sent }) {
      expectType(result, 'reply');
      expectSentAsGiven(sent);
    },
  },
  {
    id: 'temperature_sent_as_given',
    title: 'a temperature the agent sets goes out in the request body as given (a provider never sent it samples at its own default)',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: 'It is sunny.' }], stop: 'end', usage: USAGE } },
    request: (base) => ({ ...base, temperature: 0.25 }),
    check({ result, sent }) {
      expectType(result, 'reply');
      expectSentAsGiven(sent);
    },
  },
  {
    id: 'temperature_zero_sent',
    title:
      'a temperature of 0 (the greedy setting an agent picks for repeatable answers) goes out in the request body as 0, not left out as if unset (outside probe 70)',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: 'It is sunny.' }], stop: 'end', usage: USAGE } },
    request: (base) => ({ ...base, temperature: 0 }),
    check({ result, sent }) {
      expectType(result, 'reply');
      expectSentAsGiven(sent);
    },
  },
  {
    id: 'system_prompt_empty_not_sent',
    title: 'an empty system prompt (an agent with none) is not sent: no empty system message, instructions or system field goes out, as the loop records none',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: 'It is sunny.' }], stop: 'end', usage: USAGE } },
    request: (base) => ({ ...base, system: '' }),
    check({ result, sent }) {
      expectType(result, 'reply');
      expectSentAsGiven(sent);
    },
  },
  {
    id: 'history_empty_text_not_sent',
    title:
      'an empty text block in the history (beside tool results, or beside other text) is not sent: the model is shown no empty user turn or part (the Messages API refuses empty text)',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: 'It is sunny.' }], stop: 'end', usage: USAGE } },
    request: (base) => ({
      ...base,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather in Paris?' },
            { type: 'text', text: '' },
            { type: 'text', text: 'In celsius.' },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool_call', id: 'call_e', name: 'get_weather', args: { city: 'Paris', unit: 'celsius' } }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', callId: 'call_e', status: 'ok', content: '{"temp":21}' },
            { type: 'text', text: '' },
          ],
        },
      ],
    }),
    check({ result, sent }) {
      expectType(result, 'reply');
      expectSentAsGiven(sent);
    },
  },
  {
    id: 'history_empty_assistant_message_not_sent',
    title:
      'an assistant message with nothing to say in the history (no blocks, or one empty text block: a model that answered nothing) is not sent: Chat Completions refuses an assistant message with neither content nor tool_calls',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: 'Yes, I am here.' }], stop: 'end', usage: USAGE } },
    request: (base) => ({
      ...base,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
        { role: 'assistant', content: [] },
        { role: 'user', content: [{ type: 'text', text: 'Hello?' }] },
        { role: 'assistant', content: [{ type: 'text', text: '' }] },
        { role: 'user', content: [{ type: 'text', text: 'Are you there?' }] },
      ],
    }),
    check({ result, sent }) {
      expectType(result, 'reply');
      expectSentAsGiven(sent);
    },
  },
  {
    id: 'history_assistant_texts_sent_apart',
    title:
      "an assistant message with several text blocks (a model's text, a call, more text) goes out with each text apart, in order: none joined into another or dropped (Chat Completions carries them as content parts before the calls)",
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: 'It is sunny.' }], stop: 'end', usage: USAGE } },
    request: (base) => ({
      ...base,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me look.' },
            { type: 'tool_call', id: 'call_p', name: 'get_weather', args: { city: 'Paris' } },
            { type: 'text', text: 'One moment.' },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', callId: 'call_p', status: 'ok', content: '{"temp":21}' }] },
      ],
    }),
    check({ result, sent }) {
      expectType(result, 'reply');
      expectSentAsGiven(sent);
    },
  },
  {
    id: 'history_arguments_not_an_object',
    title:
      'arguments in the history that are not an object (text a model cut off, null, a list: what the loop keeps when a model\'s arguments do not parse to one) go out as the protocol takes them: an Anthropic tool_use input wraps them as {"value": …}, never null',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: 'Done.' }], stop: 'end', usage: USAGE } },
    request: (base) => ({
      ...base,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Search three times.' }] },
        {
          role: 'assistant',
          content: [
            { type: 'tool_call', id: 'call_cut', name: 'search', args: '{"query":"weather in Par' },
            { type: 'tool_call', id: 'call_null', name: 'search', args: null },
            { type: 'tool_call', id: 'call_list', name: 'search', args: ['weather', 'Paris'] },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', callId: 'call_cut', status: 'failed', content: 'Error: the arguments are not JSON' },
            { type: 'tool_result', callId: 'call_null', status: 'failed', content: 'Error: the arguments are not an object' },
            { type: 'tool_result', callId: 'call_list', status: 'failed', content: 'Error: the arguments are not an object' },
          ],
        },
      ],
    }),
    check({ result, sent }) {
      expectType(result, 'reply');
      expectSentAsGiven(sent);
    },
  },
  {
    id: 'stop_reason_missing',
    title: 'a response that ends without any stop reason ends as transport_error{malformed_stream}, not a reply, with the usage that was sent',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: 'The capital of France is' }], stop: 'missing', usage: USAGE } },
    check({ result }) {
      expectTransport(result, 'malformed_stream');
      expectUsage(result, USAGE.input, USAGE.output);
    },
  },
  {
    id: 'stop_reason_null',
    title:
      'a response whose stop reason is written null (a complete Messages body from a gateway) ends as transport_error{malformed_stream}, not a reply, with the usage that was sent',
    behaviour: {
      kind: 'turn',
      turn: { blocks: [{ type: 'text', text: 'The capital of France is' }], stop: 'missing', usage: USAGE, nullStopReason: true },
    },
    check({ result }) {
      expectTransport(result, 'malformed_stream');
      expectUsage(result, USAGE.input, USAGE.output);
    },
  },
  {
    id: 'final_event_without_status_reply',
    title: "a stream whose final event's response carries no status field ends as that event says: response.completed is a reply, text and usage kept",
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE, finalWithoutStatus: true } },
    check({ result }) {
      expectType(result, 'reply');
      assert.equal(result.text, TEXT);
      expectUsage(result, USAGE.input, USAGE.output);
    },
  },
  {
    id: 'final_event_without_status_max_tokens',
    title:
      "a stream whose final event's response carries no status field ends as that event says: response.incomplete for the token limit is max_tokens, never a whole reply",
    behaviour: {
      kind: 'turn',
      turn: { blocks: [{ type: 'text', text: 'Once upon a time, in a' }], stop: 'max_tokens', usage: USAGE, finalWithoutStatus: true },
    },
    check({ result }) {
      expectType(result, 'max_tokens');
      assert.equal(result.text, 'Once upon a time, in a');
      expectUsage(result, USAGE.input, USAGE.output);
    },
  },
  {
    id: 'unknown_stop_reason',
    title: 'a stop reason nobody has seen yet ends as unknown, naming it, text kept',
    behaviour: {
      kind: 'turn',
      turn: { blocks: [{ type: 'text', text: 'Partial thought' }], stop: { unknown: 'loopgate_unseen_reason' }, usage: USAGE },
    },
    check({ result }) {
      expectType(result, 'unknown');
      assert.equal(result.stopReason, 'loopgate_unseen_reason');
      assert.equal(result.text, 'Partial thought');
    },
  },
  {
    // Mutation seed 40, openai-responses/collect.ts: a complete body without a status read as completed.
    id: 'complete_body_without_status_not_a_reply',
    title:
      'a complete response body with no status field (nothing says how it ended: it has no final event) ends as unknown, naming it incomplete, text kept: never a whole reply',
    behaviour: {
      kind: 'turn',
      turn: { blocks: [{ type: 'text', text: 'Partial thought' }], stop: 'end', usage: USAGE, bodyWithoutStatus: true },
    },
    check({ result }) {
      expectType(result, 'unknown');
      assert.equal(result.stopReason, 'incomplete');
      assert.equal(result.text, 'Partial thought');
    },
  },
  {
    id: 'response_status_neither_completed_nor_incomplete',
    title:
      'a response whose final status is neither completed, incomplete nor failed (OpenAI Responses `cancelled`, as a cancelled background response ends) ends as unknown, naming the status, text kept: never a whole reply',
    behaviour: {
      kind: 'turn',
      turn: { blocks: [{ type: 'text', text: 'Partial thought' }], stop: 'end', usage: USAGE, finalStatus: 'cancelled' },
    },
    check({ result }) {
      expectType(result, 'unknown');
      assert.equal(result.stopReason, 'cancelled');
      assert.equal(result.text, 'Partial thought');
    },
  },
  {
    id: 'tool_use_stop_without_a_call',
    title:
      'a stop reason that says tool use with no call in the response (as a compatible server whose tool-call parser failed sends it) ends as unknown, naming the stop, text kept: never a whole reply',
    behaviour: {
      kind: 'turn',
      turn: { blocks: [{ type: 'text', text: 'Let me look that up.' }], stop: 'tool_use', usage: USAGE },
    },
    check({ result }) {
      expectType(result, 'unknown');
      // The provider's own word for it (Anthropic's tool_use, OpenAI's tool_calls, an in-house gateway's `tool`: outside
      // probe 53, LOW-1), never nothing or a word that ends a turn.
      assert.ok(
        result.stopReason.trim() !== '' && !ENDING_STOPS.has(result.stopReason),
        `the provider's stop reason is named: got ${JSON.stringify(result.stopReason)}`,
      );
      assert.equal(result.text, 'Let me look that up.');
      assert.deepEqual(result.content, [{ type: 'text', text: 'Let me look that up.' }]);
    },
  },
  {
    id: 'overflow_at_request',
    title: "the provider's context-overflow 400 ends as context_window_exceeded at request",
    behaviour: { kind: 'http_error', error: 'overflow' },
    check({ result }) {
      expectType(result, 'context_window_exceeded');
      assert.equal(result.at, 'request');
      assert.deepEqual(result.content, []);
      assert.ok(result.message.length > 0, 'the provider message is kept');
    },
  },
  {
    id: 'overflow_told_by_code_alone',
    title:
      "a 400 whose code says context_length_exceeded (OpenAI's overflow code) in words that never name the context window, as a compatible server or gateway words it, ends as context_window_exceeded at request: the code decides, not the wording",
    behaviour: { kind: 'http_error', error: 'overflow_by_code' },
    check({ result }) {
      expectType(result, 'context_window_exceeded');
      assert.equal(result.at, 'request');
      assert.deepEqual(result.content, []);
      assert.ok(result.message.length > 0, 'the provider message is kept');
    },
  },
  {
    id: 'overflow_told_by_words_alone',
    title:
      "a 400 that names the context limit in its words (maximum context length, exceeds the context window) but carries no code (code null, as a gateway that drops OpenAI's code sends it) ends as context_window_exceeded at request: the words decide when no code does",
    behaviour: { kind: 'http_error', error: 'overflow_by_words' },
    check({ result }) {
      expectType(result, 'context_window_exceeded');
      assert.equal(result.at, 'request');
      assert.deepEqual(result.content, []);
      assert.match(result.message, /maximum context length|exceeds the context window/, 'the provider message is kept');
    },
  },
  {
    id: 'overflow_input_and_max_tokens_plain_words',
    title:
      'a 400 saying the input and max_tokens together exceed the context limit, in plain words (no Markdown backticks around max_tokens), ends as context_window_exceeded at request',
    behaviour: { kind: 'http_error', error: 'overflow_input_and_max_tokens' },
    check({ result }) {
      expectType(result, 'context_window_exceeded');
      assert.equal(result.at, 'request');
      assert.deepEqual(result.content, []);
      assert.match(result.message, /max_tokens/, 'the provider message is kept');
    },
  },
  {
    id: 'request_too_large_413',
    title:
      "a request over the provider's size limit (Anthropic's 413 request_too_large) ends as context_window_exceeded at request: only a smaller history gets it through, never a request refused as it stands",
    behaviour: { kind: 'http_error', error: 'request_too_large' },
    check({ result }) {
      expectType(result, 'context_window_exceeded');
      assert.equal(result.at, 'request');
      assert.deepEqual(result.content, []);
      assert.ok(result.message.length > 0, 'the provider message is kept');
    },
  },
  {
    id: 'request_too_large_by_its_type',
    title:
      "Anthropic's request_too_large body relayed under another status (400, as a gateway that answers every refused request so) still ends as context_window_exceeded at request: its type says it",
    behaviour: { kind: 'http_error', error: 'request_too_large', status: 400 },
    check({ result }) {
      expectType(result, 'context_window_exceeded');
      assert.equal(result.at, 'request');
      assert.deepEqual(result.content, []);
      assert.ok(result.message.length > 0, 'the provider message is kept');
    },
  },
  {
    id: 'request_too_large_413_from_a_proxy',
    title:
      "a 413 whose body is no provider error (a proxy in front of Anthropic enforcing its own body-size limit, nginx's HTML page) ends as context_window_exceeded at request, as Anthropic's own 413: the status says it",
    behaviour: {
      kind: 'gateway_answer',
      status: 413,
      body: '<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n',
      contentType: 'text/html',
      onlyFor: {
        providers: ['anthropic'],
        why: 'OpenAI documents no 413 of its own: its adapters read a 413 as the invalid request it is (providers/README.md: a 413 is an overflow on Anthropic only)',
      },
    },
    check({ result }) {
      // Mutation seed 25: without the status check, only the type `request_too_large` said overflow and this 413 was refused as an invalid request.
      expectType(result, 'context_window_exceeded');
      assert.equal(result.at, 'request');
      assert.deepEqual(result.content, []);
    },
  },
  {
    id: 'overflow_during_generation',
    title: 'the context window filling during generation ends as context_window_exceeded at generation, partial message and usage kept',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: 'A long answer that' }], stop: 'overflow', usage: USAGE } },
    check({ result }) {
      expectType(result, 'context_window_exceeded');
      assert.equal(result.at, 'generation');
      assert.deepEqual(result.content, [{ type: 'text', text: 'A long answer that' }]);
      expectUsage(result, USAGE.input, USAGE.output);
    },
  },
  {
    id: 'overflow_during_generation_two_text_blocks',
    title:
      'the context window filling during generation after two text blocks ends as context_window_exceeded at generation with both blocks, and its printed summary reads their text as one',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'text', text: 'A long answer' },
          { type: 'text', text: ' that' },
        ],
        stop: 'overflow',
        usage: USAGE,
      },
    },
    check({ result }) {
      // The runner checks the printed summary against the result (summary-check.ts): its text is the blocks' text joined.
      expectType(result, 'context_window_exceeded');
      assert.equal(result.at, 'generation');
      assert.equal(
        result.content.map((b) => (b.type === 'text' ? b.text : '')).join(''),
        'A long answer that',
        `the text produced is not kept: ${JSON.stringify(result.content)}`,
      );
    },
  },
  {
    id: 'timeout',
    title: 'a stream that stalls past the timeout ends as transport_error{timeout}',
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'stall', after: 'text_delta' },
    },
    request: (base) => ({ ...base, timeoutMs: 150 }),
    check({ result }) {
      expectTransport(result, 'timeout');
    },
  },
  {
    id: 'timeout_lets_out_no_held_text',
    title:
      'a stream that stalls past the timeout after text whose tail may begin the key: the tail held back is not let out after the timeout (nothing is streamed once the call is interrupted)',
    behaviour: {
      kind: 'stream_fault',
      // The wire fakes send three pieces of ten: the first ends with "wire-", which may begin their key (wire-fake-key-…),
      // and is held back.
      turn: { blocks: [{ type: 'text', text: HELD_TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'stall', after: 'text_delta' },
    },
    // Long enough for the first piece to arrive on a loaded machine: at 150 ms it often had not (outside probe 43,
    // F1: 10 of 12 runs failed `'' !== 'Key: '` beside three busy loops), and the case read a run that never stalled.
    request: (base) => ({ ...base, timeoutMs: 1500 }),
    check({ result, deltas, secrets }) {
      expectTransport(result, 'timeout');
      // Held back only where a key is scrubbed (the in-process fake has none: it streams the piece whole) — and only a
      // tail that may begin the harness's own key: with one "wire-" cannot begin (docs/own-provider.md's), the first
      // piece goes out whole (outside probe 53, MED-3: a correct client failed on the wire fakes' key). What was
      // streamed must be what a stream holding exactly such tails lets out of some first piece of the text.
      if (secrets.length > 0) {
        const streamed = streamedText(deltas);
        const letOut = new Set(['']);
        for (let n = 1; n <= HELD_TEXT.length; n++) letOut.add(exactSecretStream(secrets).push(HELD_TEXT.slice(0, n)));
        assert.ok(
          letOut.has(streamed),
          `only the text let out before the timeout is streamed: got ${JSON.stringify(streamed)}, which no first piece lets out while holding back a tail that may begin the key`,
        );
      }
    },
  },
  {
    id: 'default_timeout',
    title: "a stream that stalls past the adapter's own default deadline (the request names none) ends as transport_error{timeout}",
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'stall', after: 'text_delta' },
    },
    adapter: { defaultTimeoutMs: 150 },
    request: ({ timeoutMs: _none, ...base }) => base,
    check({ result }) {
      expectTransport(result, 'timeout');
    },
  },
  {
    // Mutation seed 48: providers/openai-responses/client.ts:35:81 `options.store !== undefined` → `false` and
    // → `=== undefined` dropped the adapter's `store: true`, so every body said the builder's default
    // `store: false`, and no case built an adapter with the option.
    id: 'store_when_asked',
    title: 'an adapter built with store: true says store: true on a wire that has the field (the Responses API), and the reply comes through',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE } },
    adapter: { store: true },
    check({ result, sent }) {
      expectType(result, 'reply');
      assert.equal(result.text, TEXT);
      if (sent === undefined) return;
      const said = sent.got.filter((line) => line.startsWith('store:'));
      const has = sent.want.some((line) => line.startsWith('store:'));
      assert.deepEqual(said, has ? ['store: true'] : [], `the adapter was built with store: true; the wire said ${JSON.stringify(said)}`);
    },
  },
  {
    id: 'server_error_500',
    title: 'HTTP 500 ends as transport_error{server_error} with the status',
    behaviour: { kind: 'http_error', error: 'server_error', status: 500 },
    check({ result }) {
      assert.equal(expectTransport(result, 'server_error').status, 500);
    },
  },
  {
    id: 'overloaded_503',
    title: 'HTTP 503 ends as transport_error{overloaded}',
    behaviour: { kind: 'http_error', error: 'overloaded', status: 503 },
    check({ result }) {
      assert.equal(expectTransport(result, 'overloaded').status, 503);
    },
  },
  {
    id: 'overloaded_body_under_another_5xx',
    title:
      'an HTTP 500 whose body says the service is overloaded (its status rewritten by a gateway) ends as transport_error{overloaded} where the protocol types that error, else transport_error{server_error}; retryable either way, with its status',
    behaviour: { kind: 'http_error', error: 'overloaded', status: 500 },
    check({ result }) {
      assert.ok(result.type === 'transport_error', `expected a transport_error, got ${JSON.stringify(result)}`);
      // Whether the body types the error is the protocol's (Anthropic's overloaded_error does; OpenAI's body says
      // server_error, "The server is overloaded or not ready yet."): either reading is retryable. Anthropic's own
      // reading is pinned by anthropic_overloaded_error_under_500. (Outside probe 58 LOW-1: this check read the type
      // from the message's words, failing a protocol that types it in other words.)
      assert.ok(
        result.kind === 'overloaded' || result.kind === 'server_error',
        `expected transport_error{overloaded} or {server_error}, got ${JSON.stringify(result)}`,
      );
      assert.equal(result.status, 500, `the status is kept: ${JSON.stringify(result)}`);
    },
  },
  {
    id: 'anthropic_overloaded_error_under_500',
    title:
      "Anthropic's typed overloaded_error body under an HTTP 500 (a gateway's rewrite of its 529) ends as transport_error{overloaded} by its type, with the status",
    behaviour: {
      kind: 'gateway_answer',
      status: 500,
      body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
      contentType: 'application/json',
      onlyFor: { providers: ['anthropic'], why: "only Anthropic's error body types an overload (OpenAI's says server_error)" },
    },
    check({ result }) {
      assert.equal(expectTransport(result, 'overloaded').status, 500);
    },
  },
  {
    id: 'overloaded_529',
    title: 'HTTP 529 ends as transport_error{overloaded}',
    behaviour: { kind: 'http_error', error: 'overloaded', status: 529 },
    check({ result }) {
      assert.equal(expectTransport(result, 'overloaded').status, 529);
    },
  },
  {
    id: 'overloaded_503_retry_after',
    title: 'HTTP 503 with retry-after ends as transport_error{overloaded} with retryAfterMs: the wait is honoured on any retryable status',
    behaviour: { kind: 'http_error', error: 'overloaded', status: 503, retryAfterSeconds: 3 },
    check({ result }) {
      const error = expectTransport(result, 'overloaded');
      assert.equal(error.status, 503);
      assert.equal(error.retryAfterMs, 3000, 'the 503 said retry-after: 3');
    },
  },
  {
    id: 'overloaded_529_retry_after',
    title: "Anthropic's 529 overloaded with retry-after ends as transport_error{overloaded} with retryAfterMs",
    behaviour: { kind: 'http_error', error: 'overloaded', status: 529, retryAfterSeconds: 12 },
    check({ result }) {
      const error = expectTransport(result, 'overloaded');
      assert.equal(error.status, 529);
      assert.equal(error.retryAfterMs, 12_000, 'the 529 said retry-after: 12');
    },
  },
  {
    id: 'overloaded_503_retry_after_ms',
    title: 'HTTP 503 with retry-after-ms next to a rounded-up retry-after ends as transport_error{overloaded} with that many milliseconds',
    behaviour: { kind: 'http_error', error: 'overloaded', status: 503, retryAfterSeconds: 1, retryAfterMsHeader: 750 },
    check({ result }) {
      const error = expectTransport(result, 'overloaded');
      assert.equal(error.status, 503);
      assert.equal(error.retryAfterMs, 750, 'retry-after-ms is milliseconds, and finer than retry-after: 1');
    },
  },
  {
    id: 'server_error_500_retry_after',
    title: 'HTTP 500 with retry-after ends as transport_error{server_error} with retryAfterMs (a server error is retried too)',
    behaviour: { kind: 'http_error', error: 'server_error', status: 500, retryAfterSeconds: 2 },
    check({ result }) {
      const error = expectTransport(result, 'server_error');
      assert.equal(error.status, 500);
      assert.equal(error.retryAfterMs, 2000, 'the 500 said retry-after: 2');
    },
  },
  {
    id: 'rate_limited_429',
    title: 'HTTP 429 with retry-after ends as transport_error{rate_limited} with retryAfterMs',
    behaviour: { kind: 'http_error', error: 'rate_limited', status: 429, retryAfterSeconds: 7 },
    check({ result }) {
      const error = expectTransport(result, 'rate_limited');
      assert.equal(error.status, 429);
      assert.equal(error.retryAfterMs, 7000);
    },
  },
  {
    id: 'rate_limited_429_retry_after_date',
    title: 'HTTP 429 whose retry-after is an HTTP date ends as transport_error{rate_limited} with retryAfterMs until that date',
    behaviour: { kind: 'http_error', error: 'rate_limited', status: 429, retryAfterSeconds: 30, retryAfterAsDate: true },
    check({ result }) {
      const error = expectTransport(result, 'rate_limited');
      assert.equal(error.status, 429);
      // The date has whole seconds, and the call took some time: about 29 to 30 s are left.
      assert.ok(
        error.retryAfterMs !== undefined && error.retryAfterMs >= 25_000 && error.retryAfterMs <= 30_000,
        `retryAfterMs ${error.retryAfterMs}: expected the time until the date in retry-after (about 30 000 ms)`,
      );
    },
  },
  {
    id: 'rate_limited_429_retry_after_ms',
    title:
      'HTTP 429 with retry-after-ms (as OpenAI sends it, next to a rounded-up retry-after) ends as transport_error{rate_limited} with that many milliseconds',
    behaviour: { kind: 'http_error', error: 'rate_limited', status: 429, retryAfterSeconds: 1, retryAfterMsHeader: 500 },
    check({ result }) {
      const error = expectTransport(result, 'rate_limited');
      assert.equal(error.status, 429);
      assert.equal(error.retryAfterMs, 500, 'retry-after-ms is milliseconds, and finer than retry-after: 1');
    },
  },
  {
    id: 'rate_limited_429_retry_after_ms_blank',
    title:
      'HTTP 429 whose retry-after-ms header is blank, next to retry-after: 3, ends as transport_error{rate_limited} waiting 3 s (a blank header is no value, never 0 ms)',
    behaviour: { kind: 'http_error', error: 'rate_limited', status: 429, retryAfterSeconds: 3, retryAfterMsHeader: '' },
    check({ result }) {
      const error = expectTransport(result, 'rate_limited');
      assert.equal(error.status, 429);
      assert.equal(error.retryAfterMs, 3000, 'retry-after-ms was blank: retry-after: 3 decides (read as 0 ms, the loop would retry at once)');
    },
  },
  {
    id: 'rate_limited_429_retry_after_blank',
    title:
      'HTTP 429 whose retry-after header is blank (and no retry-after-ms) ends as transport_error{rate_limited} with no retryAfterMs (a blank header is no value, never 0 ms)',
    behaviour: { kind: 'http_error', error: 'rate_limited', status: 429, retryAfterSeconds: '' },
    check({ result }) {
      const error = expectTransport(result, 'rate_limited');
      assert.equal(error.status, 429);
      assert.equal(error.retryAfterMs, undefined, 'retry-after was blank: no wait was said (read as 0 ms, the loop would retry at once)');
    },
  },
  {
    id: 'rate_limited_429_retry_after_ms_zero',
    title:
      'HTTP 429 with retry-after-ms: 0 next to a rounded-up retry-after: 1 ends as transport_error{rate_limited} with retryAfterMs 0 (the limit has reset: retry now)',
    behaviour: { kind: 'http_error', error: 'rate_limited', status: 429, retryAfterSeconds: 1, retryAfterMsHeader: 0 },
    check({ result }) {
      const error = expectTransport(result, 'rate_limited');
      assert.equal(error.status, 429);
      assert.equal(error.retryAfterMs, 0, 'retry-after-ms: 0 is a value (no wait), finer than retry-after: 1');
    },
  },
  {
    id: 'rate_limited_429_retry_after_ms_negative',
    title:
      'HTTP 429 whose retry-after-ms is negative (a gateway counting to a reset already past), next to retry-after: 2, ends as transport_error{rate_limited} waiting 2 s (no wait is negative)',
    behaviour: { kind: 'http_error', error: 'rate_limited', status: 429, retryAfterSeconds: 2, retryAfterMsHeader: -250 },
    check({ result }) {
      const error = expectTransport(result, 'rate_limited');
      assert.equal(error.status, 429);
      assert.equal(error.retryAfterMs, 2000, 'retry-after-ms was negative, no wait: retry-after: 2 decides');
    },
  },
  {
    id: 'rate_limited_429_retry_after_zero',
    title:
      'HTTP 429 with retry-after: 0 (and no retry-after-ms) ends as transport_error{rate_limited} with retryAfterMs 0 (the limit has reset: retry now), not without a wait said',
    behaviour: { kind: 'http_error', error: 'rate_limited', status: 429, retryAfterSeconds: 0 },
    check({ result }) {
      // Mutation seed 47, retry-after.ts:16: `seconds >= 0` → `seconds > 0` read retry-after: 0 as no value.
      const error = expectTransport(result, 'rate_limited');
      assert.equal(error.status, 429);
      assert.equal(error.retryAfterMs, 0, 'retry-after: 0 is a value (no wait)');
    },
  },
  {
    id: 'rate_limited_429_retry_after_negative',
    title:
      'HTTP 429 whose retry-after is negative (a gateway counting to a reset already past) and no retry-after-ms ends as transport_error{rate_limited} with no retryAfterMs (no wait is negative)',
    behaviour: { kind: 'http_error', error: 'rate_limited', status: 429, retryAfterSeconds: -5 },
    check({ result }) {
      // Mutation seed 47, retry-after.ts:16: `seconds >= 0` → `true` passed on a wait of -5000 ms.
      const error = expectTransport(result, 'rate_limited');
      assert.equal(error.status, 429);
      assert.equal(error.retryAfterMs, undefined, 'retry-after was negative: no wait was said');
    },
  },
  {
    id: 'quota_exhausted_billing_429',
    title:
      'a billing error (Anthropic `billing_error`) sent as HTTP 429 with retry-after, as a gateway may relay it, ends as transport_error{auth}: waiting does not bring credit back',
    behaviour: { kind: 'http_error', error: 'quota', status: 429, retryAfterSeconds: 5 },
    check({ result }) {
      const error = expectTransport(result, 'auth');
      assert.equal(error.retryAfterMs, undefined, 'an account problem is not retried, whatever retry-after says');
    },
  },
  {
    id: 'quota_exhausted',
    title: 'an account out of quota or credit ends as transport_error{auth}, never a rate limit to retry (even sent as a 429 with retry-after)',
    behaviour: { kind: 'http_error', error: 'quota' },
    check({ result }) {
      const error = expectTransport(result, 'auth');
      assert.equal(error.retryAfterMs, undefined, 'no retry-after: waiting does not bring credit back');
    },
  },
  {
    id: 'auth_401',
    title: 'HTTP 401 ends as transport_error{auth}',
    behaviour: { kind: 'http_error', error: 'auth', status: 401 },
    check({ result }) {
      assert.equal(expectTransport(result, 'auth').status, 401);
    },
  },
  {
    id: 'auth_401_quotes_the_key',
    title: 'a 401 whose message quotes the API key the request carried (as some gateways answer) ends as transport_error{auth}, the key in none of the result',
    behaviour: { kind: 'http_error', error: 'auth', status: 401, quotesCredential: true },
    check({ result, secrets }) {
      // The runner has already failed any result or delta that carries a declared credential.
      assert.ok(secrets.length > 0, 'the harness declares no credential it gave the client (HarnessClient.secrets): nothing to keep out');
      assert.equal(expectTransport(result, 'auth').status, 401);
    },
  },
  {
    id: 'streamed_reply_quotes_the_key',
    title:
      'a streamed reply whose text quotes the API key, split across deltas, and whose tool arguments carry it base64-encoded, keeps the key out of every delta, their joined text and the result; the rest arrives',
    behaviour: {
      kind: 'turn',
      quotesCredential: true,
      turn: {
        blocks: [
          { type: 'text', text: 'The key you pasted, {{credential}}, is now stored.' },
          { type: 'tool_call', id: 'call_key', name: 'search', args: '{"query":"revoke {{credential:base64}} now"}' },
        ],
        stop: 'tool_use',
        usage: USAGE,
      },
    },
    check({ result, deltas, secrets, streams }) {
      // The runner has already failed any result or delta — or the deltas' joined text — that carries a declared credential.
      assert.ok(secrets.length > 0, 'the harness declares no credential it gave the client (HarnessClient.secrets): nothing to keep out');
      expectType(result, 'tool_use');
      assert.match(result.text, /^The key you pasted, .+, is now stored\.$/, 'the text around the key arrives');
      assert.deepEqual(
        result.calls.map((c) => c.name),
        ['search'],
        'the tool call arrives',
      );
      if (!streams) return;
      assert.equal(streamedText(deltas), result.text, 'the streamed text, joined, is the reply text: nothing held back is lost');
      const args = deltas.flatMap((d) => (d.kind === 'tool_args' ? [d.json] : [])).join('');
      assert.match(args, /^\{"query":"revoke .+ now"\}$/, 'the streamed arguments arrive whole around the key');
    },
  },
  streamedCallQuotingTheKey(
    'streamed_call_id_quotes_the_key',
    'a streamed tool call whose id quotes the API key (a gateway that builds call ids from the request) keeps the key out of the call-start delta and the result; the call arrives',
    'id',
  ),
  streamedCallQuotingTheKey(
    'streamed_call_name_quotes_the_key',
    'a streamed tool call whose name (not its id) quotes the API key keeps the key out of the call-start delta and the result: a start is redacted when either of its two fields holds the key',
    'name',
  ),
  {
    id: 'streamed_reply_quotes_the_key_in_hex',
    title:
      'a streamed reply whose text quotes the API key as hex (a debug dump of its bytes), split across deltas, keeps every piece of it held back until it can be redacted whole: no delta, nor their joined text, carries it; the text around it arrives',
    behaviour: {
      kind: 'turn',
      quotesCredential: true,
      turn: {
        blocks: [{ type: 'text', text: 'Request header bytes: {{credential:hex}} (end of dump).' }],
        stop: 'end',
        usage: USAGE,
      },
    },
    check({ result, secrets, deltas, streams }) {
      // The runner has already failed any result or delta — or the deltas' joined text — that carries a declared credential
      // (mutation seed 24: a stream that held back a tail beginning the base64 of the key, but not one beginning its hex).
      assert.ok(secrets.length > 0, 'the harness declares no credential it gave the client (HarnessClient.secrets): nothing to keep out');
      expectType(result, 'reply');
      assert.match(result.text, /^Request header bytes: .+ \(end of dump\)\.$/, 'the text around the key arrives');
      if (streams) assert.equal(streamedText(deltas), result.text, 'the streamed text, joined, is the reply text: nothing held back is lost');
    },
  },
  {
    id: 'reply_quotes_the_key_url_encoded_beside_a_latin1_byte',
    title:
      'a reply quoting the API key URL-encoded byte by byte, run together with a latin1 escape (`%A0`, a no-break space an old form encoder wrote) that is not UTF-8, keeps the key out of the result and every delta; the text around it arrives',
    behaviour: {
      kind: 'turn',
      quotesCredential: true,
      turn: {
        blocks: [{ type: 'text', text: 'Your form sent key={{credential:percent}}%A0&lang=de to the old portal.' }],
        stop: 'end',
        usage: USAGE,
      },
    },
    check({ result, deltas, secrets, streams }) {
      // The runner's own search is the kernel's, which this form must not get past: looked for here as written too.
      assert.ok(secrets.length > 0, 'the harness declares no credential it gave the client (HarnessClient.secrets): nothing to keep out');
      expectType(result, 'reply');
      const encoded = secrets.map((s) => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''));
      const carries = (text: string) => encoded.some((e) => text.toLowerCase().includes(e));
      assert.ok(!carries(result.text), `the result's text carries the key URL-encoded: ${JSON.stringify(result.text.slice(0, 40))}…`);
      assert.match(result.text, /^Your form sent key=.+%A0&lang=de to the old portal\.$/, 'the text around the key arrives');
      if (!streams) return;
      assert.ok(!carries(streamedText(deltas)), 'the streamed text, joined, carries the key URL-encoded');
      assert.equal(streamedText(deltas), result.text, 'the streamed text, joined, is the reply text');
    },
  },
  {
    id: 'streamed_reply_let_out_as_it_comes',
    title:
      'a streamed reply in which no form of the API key can begin is let out piece by piece as the provider sends it: the credential scrubber holds nothing back to the end',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE } },
    check({ result, deltas, streams, secrets, pieces }) {
      expectType(result, 'reply');
      assert.equal(result.text, TEXT);
      // Only where the harness says how the provider split the text, and gave a key (else nothing is scrubbed).
      if (!streams || pieces === undefined || secrets.length === 0) return;
      const texts = deltas.flatMap((d) => (d.kind === 'text' ? [d.text] : []));
      // No piece of TEXT ends in a tail that begins a form of the harness's key (none holds a `%`, a backslash, a digit or the key's first letters):
      // a UI shows each as it arrives, not one character late.
      assert.deepEqual(texts, pieces(TEXT), 'the text deltas are the pieces the provider sent, each let out as it came');
    },
  },
  {
    id: 'forbidden_403',
    title: 'HTTP 403 (the key may not use this model, or not from here) ends as transport_error{auth}, never retried as a server fault',
    behaviour: { kind: 'http_error', error: 'forbidden' },
    check({ result }) {
      assert.equal(expectTransport(result, 'auth').status, 403);
    },
  },
  {
    id: 'payment_required_402',
    title:
      'HTTP 402 with no billing type in its body (OpenRouter\'s {"error":{"code":402,"message":"Insufficient credits…"}}) ends as transport_error{auth}: an account problem, not a request to fix',
    behaviour: {
      kind: 'gateway_answer',
      status: 402,
      body: '{"error":{"code":402,"message":"Insufficient credits. Add more using https://openrouter.ai/credits"}}',
      contentType: 'application/json',
    },
    check({ result }) {
      assert.equal(expectTransport(result, 'auth').status, 402);
    },
  },
  {
    id: 'request_timeout_408',
    title:
      'HTTP 408 (the server, or a gateway in front of it, gave up waiting for the request) ends as transport_error{timeout}: retried as a timeout, not refused as a bad request',
    behaviour: { kind: 'http_error', error: 'request_timeout' },
    check({ result }) {
      assert.equal(expectTransport(result, 'timeout').status, 408);
    },
  },
  {
    id: 'network_before_response',
    title: 'a connection reset before any response ends as transport_error{network}',
    behaviour: { kind: 'reset_before_response' },
    check({ result }) {
      expectNetworkCause(expectTransport(result, 'network'));
    },
  },
  {
    id: 'connect_timeout',
    title: 'a connection attempt that times out before any response (packets dropped, no route) ends as transport_error{timeout}, not network',
    behaviour: { kind: 'connect_timeout' },
    check({ result }) {
      expectTransport(result, 'timeout');
    },
  },
  {
    id: 'network_during_stream',
    title: 'a connection reset mid-stream ends as transport_error{network}, not a short reply',
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'reset', after: 'text_delta' },
    },
    check({ result }) {
      expectNetworkCause(expectTransport(result, 'network'));
    },
  },
  {
    id: 'network_after_the_usage_frame_keeps_the_usage',
    title:
      "a connection reset after the frame reporting usage, before the stream's end, ends as transport_error{network} keeping that usage (the tokens were spent, and a budget counts them) — or, where that frame may end the stream, as the whole reply",
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'reset', after: 'usage' },
    },
    check({ result }) {
      // Where the usage frame is one of the stream's possible endings (OpenAI Chat's, after finish_reason), the answer came whole.
      if (result.type !== 'reply') expectNetworkCause(expectTransport(result, 'network'));
      expectUsage(result, USAGE.input, USAGE.output);
    },
  },
  {
    id: 'network_during_stream_fails_with_string',
    title:
      "a stream whose body read fails with a string, not an Error (the adapter's own fetch: a wrapper, a polyfill), ends as transport_error{network} saying it",
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'reset', after: 'text_delta', failsWith: { value: 'upstream proxy closed the stream' } },
    },
    check({ result }) {
      const error = expectTransport(result, 'network');
      assert.match(error.message, /upstream proxy closed the stream/, `the message does not say what the read failed with: ${error.message}`);
      assert.doesNotMatch(error.message, /undefined/, `the message says undefined: ${error.message}`);
    },
  },
  {
    id: 'network_during_stream_fails_with_undefined',
    title:
      "a stream whose body read fails with undefined (a stream errored with no reason, by the adapter's own fetch) ends as transport_error{network}, the call never rejecting",
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'reset', after: 'text_delta', failsWith: { value: undefined } },
    },
    check({ result }) {
      expectTransport(result, 'network');
    },
  },
  {
    id: 'network_during_stream_fails_with_bare_object',
    title:
      'a stream whose body read fails with an object that has no prototype (no toString: String() of it throws) ends as transport_error{network}, the call never rejecting',
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'reset', after: 'text_delta', failsWith: { value: Object.create(null) } },
    },
    check({ result }) {
      const error = expectTransport(result, 'network');
      // Mutation seed 47, call-runner.ts:162: the words for a value with no text form emptied, the message said nothing of it.
      assert.match(error.message, /a thrown value with no text form/, `the message does not say what the read failed with: ${error.message}`);
    },
  },
  {
    id: 'network_during_stream_fails_with_unclassifiable_value',
    title:
      'a stream whose body read fails with a value no `instanceof` can be asked of (a Proxy whose getPrototypeOf trap throws), so that sorting the error itself throws, ends as transport_error{network} saying what went wrong, the call never rejecting',
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: {
        type: 'reset',
        after: 'text_delta',
        failsWith: {
          value: new Proxy(
            {},
            {
              getPrototypeOf() {
                throw new Error('no prototype to tell');
              },
            },
          ),
        },
      },
    },
    check({ result }) {
      const error = expectTransport(result, 'network');
      assert.match(error.message, /no prototype to tell/, `the message does not say why the error could not be sorted: ${error.message}`);
    },
  },
  {
    id: 'network_mid_tool_arguments',
    title: "a stream cut in the middle of a tool call's JSON ends as transport_error{network} with no call",
    behaviour: {
      kind: 'stream_fault',
      turn: {
        blocks: [{ type: 'tool_call', id: 'call_cut', name: 'get_weather', args: '{"city":"Paris","unit":"celsius"}' }],
        stop: 'tool_use',
        usage: USAGE,
      },
      fault: { type: 'reset', after: 'args_delta', nth: 2 },
    },
    check({ result }) {
      expectNetworkCause(expectTransport(result, 'network'));
    },
  },
  {
    id: 'malformed_stream',
    title: 'an SSE data line with broken JSON ends as transport_error{malformed_stream}',
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'malformed', after: 'text_delta' },
    },
    check({ result }) {
      expectTransport(result, 'malformed_stream');
    },
  },
  {
    id: 'null_event_in_stream',
    title:
      'an event whose data is JSON null in the middle of a stream (a gateway writing an empty event so; the SDK hands it on as null) is skipped: the reply and its deltas are what the other events say',
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'null_data', after: 'text_delta' },
    },
    check({ result, deltas, streams }) {
      expectType(result, 'reply');
      assert.equal(result.text, TEXT);
      if (!streams && deltas.length === 0) return;
      assert.equal(streamedText(deltas), TEXT, 'the text deltas add up to the text');
    },
  },
  {
    id: 'blocks_without_index',
    title:
      'a stream whose events lost the index of the block they belong to (a proxy re-serializing them) ends as transport_error{malformed_stream}, or comes whole — never a reply with a call lost or two blocks run together',
    behaviour: {
      kind: 'stream_fault',
      turn: {
        blocks: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_call', id: 'call_ix', name: 'get_weather', args: '{"city":"Bern"}' },
        ],
        stop: 'tool_use',
        usage: USAGE,
      },
      fault: { type: 'without_index' },
    },
    // Mutation seed 46: an Anthropic collector that took a block without an index for block NaN put every block in one
    // slot — the call's deltas dropped as "repeated", the turn answered `unknown` with its call lost.
    check({ result }) {
      if (result.type === 'transport_error') {
        expectTransport(result, 'malformed_stream');
        return;
      }
      expectType(result, 'tool_use');
      assert.equal(result.text, 'Checking.');
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        [{ id: 'call_ix', name: 'get_weather', args: { city: 'Bern' } }],
      );
    },
  },
  {
    id: 'stream_without_final_event',
    title: 'a stream that closes without its final event ends as transport_error{malformed_stream}, not a reply',
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'drop_end' },
    },
    check({ result }) {
      expectTransport(result, 'malformed_stream');
    },
  },
  {
    id: 'tool_call_never_closed',
    title:
      'a stream that leaves out the events closing each block: where the ending vouches for the calls they come whole, else it ends as transport_error{malformed_stream} naming the call left open',
    behaviour: {
      kind: 'stream_fault',
      turn: {
        blocks: [{ type: 'tool_call', id: 'call_open', name: 'get_weather', args: '{"city":"Bern"}' }],
        stop: 'tool_use',
        usage: USAGE,
      },
      fault: { type: 'without', tag: 'block_stop' },
    },
    check({ result }) {
      if (result.type === 'tool_use') {
        assert.deepEqual(
          result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
          [{ id: 'call_open', name: 'get_weather', args: { city: 'Bern' } }],
        );
        return;
      }
      const error = expectTransport(result, 'malformed_stream');
      assert.match(error.message, /get_weather/, `the message does not name the call left open: ${error.message}`);
      // The stream did say how it ended (only the closing events are missing): the message gives that, not its absence.
      assert.doesNotMatch(error.message, /no stop reason|undefined/, `the message loses the stop reason the stream sent: ${error.message}`);
    },
  },
  {
    id: 'error_event_in_stream',
    title: 'an overloaded error event inside a 200 stream ends as transport_error{overloaded}',
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'error_event', after: 'text_delta' },
    },
    check({ result }) {
      expectTransport(result, 'overloaded');
    },
  },
  {
    id: 'rate_limit_event_in_stream',
    title: 'a rate-limit error event inside a 200 stream ends as transport_error{rate_limited}, not a server error',
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'error_event', after: 'text_delta', error: 'rate_limited' },
    },
    check({ result }) {
      expectTransport(result, 'rate_limited');
    },
  },
  {
    id: 'rate_limit_event_told_by_type_alone',
    title:
      'a rate-limit error event inside a 200 stream told by its type alone (OpenAI `tokens`, code null) ends as transport_error{rate_limited}, not a server error',
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'error_event', after: 'text_delta', error: 'rate_limited_by_type' },
    },
    check({ result }) {
      expectTransport(result, 'rate_limited');
    },
  },
  {
    id: 'rate_limit_failure_told_by_type_alone',
    title:
      'a response that ends failed mid-stream (OpenAI Responses response.failed) with a rate-limit error told by its type alone (`tokens`, no code) ends as transport_error{rate_limited}, not a server error',
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'error_event', after: 'text_delta', error: 'rate_limited_by_type', asFailedResponse: true },
    },
    check({ result }) {
      expectTransport(result, 'rate_limited');
    },
  },
  {
    id: 'error_event_without_type_or_code',
    title:
      "an error event inside a 200 stream that says only its message (no type, no code: an OpenAI-compatible server's own error) ends as transport_error{server_error}, retryable: not auth, not a rate limit",
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'error_event', after: 'text_delta', error: 'untyped' },
    },
    check({ result }) {
      // Mutation seed 47, shared/failure.ts:39: `labels.some` → `labels.every` is true of no label at all, so an error
      // with neither type nor code was read as an auth failure (failed at once, never retried).
      expectTransport(result, 'server_error');
    },
  },
  {
    id: 'failure_without_type_or_code',
    title:
      'a response that ends failed mid-stream (OpenAI Responses response.failed) with an error that says only its message (no type, no code) ends as transport_error{server_error}, retryable',
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'error_event', after: 'text_delta', error: 'untyped', asFailedResponse: true },
    },
    check({ result }) {
      expectTransport(result, 'server_error');
    },
  },
  {
    id: 'auth_error_event_in_stream',
    title:
      'an error event inside a 200 stream that refuses the key, told by its type or code alone (Anthropic authentication_error, OpenAI invalid_api_key), ends as transport_error{auth}: never retried as a server error, nor a request refused as it stands',
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'error_event', after: 'text_delta', error: 'auth' },
    },
    check({ result }) {
      // Mutation seed 49, shared/failure.ts:23: the auth types emptied, Anthropic's authentication_error read as a
      // server error (retried with the same key) and OpenAI's invalid_api_key under invalid_request_error as a request
      // refused as it stands. The wire fakes had sent the auth failures only as 401s, whose status decides alone.
      expectTransport(result, 'auth');
    },
  },
  {
    id: 'overflow_failure_before_output',
    title:
      'a response that ends failed before any output with a context overflow (OpenAI Responses response.failed, code context_length_exceeded, no HTTP status) ends as context_window_exceeded at request, never a request refused as it stands',
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'error_event', after: 'start', error: 'overflow', asFailedResponse: true },
    },
    check({ result }) {
      expectType(result, 'context_window_exceeded');
      assert.equal(result.at, 'request');
      assert.deepEqual(result.content, []);
      assert.ok(result.message.length > 0, 'the provider message is kept');
    },
  },
  {
    id: 'overflow_failure_after_an_empty_message_opened',
    title:
      'a response that opens its message item, then ends failed with a context overflow before any text (OpenAI Responses response.failed, code context_length_exceeded) ends as context_window_exceeded at request: an empty message is no output',
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'error_event', after: 'block_start', error: 'overflow', asFailedResponse: true },
    },
    check({ result }) {
      expectType(result, 'context_window_exceeded');
      assert.equal(result.at, 'request', 'nothing was produced: only a shorter history gets the request through');
      assert.deepEqual(result.content, []);
    },
  },
  {
    id: 'overflow_failure_after_a_started_call',
    title:
      'a response that ends failed with a context overflow after an empty message and a started call (OpenAI Responses response.failed, code context_length_exceeded) ends as context_window_exceeded with no content: the cut-off call is not kept, and the empty message is no text',
    behaviour: {
      kind: 'stream_fault',
      turn: {
        blocks: [
          { type: 'text', text: '' },
          { type: 'tool_call', id: 'call_o1', name: 'get_weather', args: '{"city":"Oslo"}' },
        ],
        stop: 'tool_use',
        usage: USAGE,
      },
      fault: { type: 'error_event', after: 'args_delta', error: 'overflow', asFailedResponse: true },
    },
    check({ result }) {
      // Mutation seed 47, openai-responses/collect.ts:223: the content's filter (`b.type === 'text' && b.text`) as `true`
      // kept the call as a text block with no text and the empty message; as `||`, the empty message.
      expectType(result, 'context_window_exceeded');
      assert.deepEqual(result.content, [], 'nothing of the cut-off output is content');
    },
  },
  {
    id: 'overflow_failure_after_text',
    title:
      'a response that ends failed with a context overflow after some text (OpenAI Responses response.failed, code context_length_exceeded) ends as context_window_exceeded at generation, the text kept (providers/README.md: handled if it follows output)',
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'error_event', after: 'text_delta', error: 'overflow', asFailedResponse: true },
    },
    check({ result, deltas, streams }) {
      expectType(result, 'context_window_exceeded');
      // A client that does not stream gets the overflow as the 400 a complete body is: at the request.
      if (!streams) {
        assert.equal(result.at, 'request');
        assert.deepEqual(result.content, []);
        return;
      }
      assert.equal(result.at, 'generation');
      const streamed = streamedText(deltas);
      assert.ok(streamed !== '' && TEXT.startsWith(streamed), `the text before the failure did not stream: ${JSON.stringify(streamed)}`);
      assert.deepEqual(result.content, [{ type: 'text', text: streamed }], 'the text produced before the failure is kept');
    },
  },
  {
    id: 'timeout_event_in_stream',
    title: 'a timeout error event inside a 200 stream ends as transport_error{timeout}, not a server error',
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'error_event', after: 'text_delta', error: 'request_timeout' },
    },
    check({ result }) {
      expectTransport(result, 'timeout');
    },
  },
  {
    id: 'timeout_with_a_fetch_that_drops_the_signal',
    title:
      "a stream that stalls past the timeout, fetched by the user's own fetch that does not pass the abort signal on, still ends as transport_error{timeout} at the deadline",
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'stall', after: 'text_delta', fetchDropsSignal: true },
    },
    request: (base) => ({ ...base, timeoutMs: 150 }),
    check({ result }) {
      expectTransport(result, 'timeout');
    },
  },
  {
    id: 'abort_during_stream',
    title: 'aborting the signal mid-stream ends as transport_error{aborted}',
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'stall', after: 'text_delta' },
    },
    drive: 'abort_on_first_delta',
    check({ result, deltas, requestCount, requestsAborted }) {
      expectTransport(result, 'aborted');
      assert.ok(deltas.length >= 1, 'the call streamed before it was aborted');
      // The abort reaches the connection: a call that only stops listening leaves the provider generating (and billing).
      if (requestCount !== undefined && requestsAborted !== undefined)
        assert.equal(requestsAborted, requestCount, 'the aborted call left its request open: the abort never reached the connection');
    },
  },
  {
    id: 'abort_while_a_read_holds_more_deltas',
    title:
      'aborting the signal on the first delta of a stream whose deltas came in one network read (a buffering proxy) ends as transport_error{aborted}, and no delta the SDK hands on after the abort reaches the listener',
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'stall', after: 'text_delta', nth: 3, oneRead: true },
    },
    drive: 'abort_on_first_delta',
    check({ result, deltas }) {
      expectTransport(result, 'aborted');
      // The SDKs yield every event of a read already in hand, abort or not: the call frame must drop what follows.
      assert.equal(deltas.length, 1, 'deltas reached the listener after it aborted the call');
    },
  },
  {
    id: 'abort_on_a_call_start_that_carries_its_arguments',
    title:
      'aborting the signal on the start of a tool call whose one chunk also carries all its arguments (as some OpenAI-compatible servers stream calls) ends as transport_error{aborted}, and the arguments the adapter reads from that same chunk do not reach the listener',
    behaviour: {
      kind: 'stream_fault',
      turn: {
        blocks: [{ type: 'tool_call', id: 'call_abort', name: 'search', args: '{"query":"order status"}' }],
        stop: 'tool_use',
        usage: USAGE,
        unindexed: true,
      },
      fault: { type: 'stall', after: 'block_start' },
    },
    drive: 'abort_on_first_delta',
    check({ result, deltas }) {
      expectTransport(result, 'aborted');
      // The abort lands while the adapter is still handing on what one event said: the rest of it is dropped.
      assert.deepEqual(
        deltas.map((d) => d.kind),
        ['tool_call_start'],
        'a delta reached the listener after it aborted the call',
      );
    },
  },
  {
    id: 'abort_before_call',
    title: 'an already-aborted signal ends as transport_error{aborted} without sending the request',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE } },
    drive: 'abort_before_call',
    check({ result, requestCount }) {
      expectTransport(result, 'aborted');
      if (requestCount !== undefined) assert.equal(requestCount, 0, 'no request was sent');
    },
  },
  {
    id: 'empty_reply',
    title: 'a turn that ends with no content is a reply with empty text (the loop decides what empty means)',
    behaviour: { kind: 'turn', turn: { blocks: [], stop: 'end', usage: USAGE } },
    check({ result }) {
      expectType(result, 'reply');
      assert.equal(result.text, '');
      assert.deepEqual(result.content, []);
      expectUsage(result, USAGE.input, USAGE.output);
    },
  },
  {
    id: 'empty_stream',
    title: 'a 200 with nothing in it (a stream with no events, a body of JSON null) ends as transport_error{malformed_stream}',
    behaviour: { kind: 'empty_stream' },
    check({ result }) {
      expectTransport(result, 'malformed_stream');
    },
  },
  {
    id: 'gateway_502_without_provider_error',
    title:
      'a 502 from a gateway in front of the provider, its JSON body not the provider\'s error (AWS API Gateway\'s {"message":"Internal server error"}), ends as transport_error{server_error} with the status',
    behaviour: { kind: 'gateway_answer', status: 502, body: '{"message":"Internal server error"}', contentType: 'application/json' },
    check({ result }) {
      assert.equal(expectTransport(result, 'server_error').status, 502);
    },
  },
  {
    id: 'overflow_words_under_a_502_stay_a_server_error',
    title:
      "a 502 from a gateway whose JSON body quotes the provider's overflow words (a gateway passing on an upstream's error under its own status) ends as transport_error{server_error} with the status: only a 400, or an error with no status, is read by its words, so a server failure never starts a compaction",
    behaviour: {
      kind: 'gateway_answer',
      status: 502,
      body: '{"type":"error","error":{"type":"api_error","message":"upstream error: prompt is too long: 215438 tokens > 200000 maximum"}}',
      contentType: 'application/json',
    },
    check({ result }) {
      // Mutation seed 47, anthropic/errors.ts:19: without the status check, any status whose words said overflow was one.
      assert.equal(expectTransport(result, 'server_error').status, 502);
    },
  },
  {
    id: 'gateway_200_html_page',
    title:
      "a 200 whose body is a web page, not the provider's answer (a captive portal or a proxy's login page) ends as transport_error{malformed_stream}: not network, which a retry would only repeat, and never a reply",
    behaviour: {
      kind: 'gateway_answer',
      status: 200,
      body: '<!DOCTYPE html>\n<html><head><title>Sign in to continue</title></head><body><form action="/login"></form></body></html>\n',
      contentType: 'text/html; charset=utf-8',
    },
    check({ result }) {
      expectTransport(result, 'malformed_stream');
    },
  },
  {
    id: 'gateway_200_json_cut_short',
    title:
      'a 200 whose JSON body is cut short (a proxy that closed its buffer early) ends as transport_error{malformed_stream}: not network, and never a reply',
    behaviour: {
      kind: 'gateway_answer',
      status: 200,
      body: '{"id":"msg_01","type":"message","role":"assistant","content":[{"type":"text","text":"The ord',
      contentType: 'application/json',
    },
    check({ result }) {
      expectTransport(result, 'malformed_stream');
    },
  },
  {
    id: 'gateway_200_json_of_another_shape',
    title:
      'a 200 whose body is JSON of another shape (a gateway\'s own {"status":"ok"}, not the provider\'s message) ends as transport_error{malformed_stream}: not network, and never a reply',
    behaviour: { kind: 'gateway_answer', status: 200, body: '{"status":"ok","queued":true}', contentType: 'application/json' },
    check({ result }) {
      expectTransport(result, 'malformed_stream');
    },
  },
  {
    id: 'gateway_200_json_error_body',
    title:
      "a 200 whose JSON body is an error (a gateway passing an upstream failure on under 200) ends as a transport error — by the error's type where the client reads it, else transport_error{malformed_stream} — never a reply or an empty one",
    behaviour: {
      kind: 'gateway_answer',
      status: 200,
      body: '{"error":{"type":"overloaded_error","message":"the upstream model is overloaded, try again later"}}',
      contentType: 'application/json',
    },
    check({ result }) {
      expectType(result, 'transport_error');
      const failure = result as Extract<ModelResult, { type: 'transport_error' }>;
      assert.ok(
        ['overloaded', 'server_error', 'malformed_stream'].includes(failure.kind),
        `expected transport_error{overloaded}, {server_error} or {malformed_stream}, got ${JSON.stringify(result)}`,
      );
      assert.ok(failure.message.trim() !== '', `transport_error{${failure.kind}} says nothing of what went wrong: ${JSON.stringify(result)}`);
    },
  },
  {
    id: 'gateway_redirect_without_location',
    title:
      "a redirect the client cannot follow (a proxy's 307 with no location) ends as transport_error{server_error} with the status, not a reply or an unclassified failure",
    behaviour: { kind: 'gateway_answer', status: 307, body: 'Temporary Redirect', contentType: 'text/plain' },
    check({ result }) {
      assert.equal(expectTransport(result, 'server_error').status, 307);
    },
  },
  {
    id: 'usage_accounting',
    title: 'usage is reported as sent: input, output and cache-read tokens',
    behaviour: {
      kind: 'turn',
      turn: { blocks: [{ type: 'text', text: 'ok' }], stop: 'end', usage: { input: 1200, output: 340, cacheRead: 1000 } },
    },
    check({ result }) {
      expectType(result, 'reply');
      expectUsage(result, 1200, 340);
      assert.equal(result.usage?.cacheReadTokens, 1000, 'usage.cacheReadTokens');
    },
  },
  {
    id: 'usage_accounting_cache_write',
    title: 'usage with prompt-cache writes: the tokens written to the cache count as input, and are reported apart',
    behaviour: {
      kind: 'turn',
      turn: { blocks: [{ type: 'text', text: 'ok' }], stop: 'end', usage: { input: 1312, output: 40, cacheRead: 300, cacheWrite: 1000 } },
    },
    check({ result }) {
      expectType(result, 'reply');
      expectUsage(result, 1312, 40);
      assert.equal(result.usage?.cacheReadTokens, 300, 'usage.cacheReadTokens');
      assert.equal(result.usage?.cacheWriteTokens, 1000, 'usage.cacheWriteTokens');
    },
  },
  {
    id: 'blocks_never_started',
    title:
      'a stream that leaves out the events opening each block (a proxy that drops them): deltas for a block that never started end it as transport_error{malformed_stream}, never as a dropped connection (network), which a retry would repeat',
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'without', tag: 'block_start' },
    },
    check({ result }) {
      // Anthropic opens every block with content_block_start; a protocol whose text needs no opening event replies.
      if (result.type === 'transport_error') {
        expectTransport(result, 'malformed_stream');
        return;
      }
      expectType(result, 'reply');
      assert.equal(result.text, TEXT, 'the reply text');
    },
  },
  {
    id: 'content_before_response_start',
    title:
      "a stream whose first block comes before the event that opens the response (Anthropic's message_start, which every real stream sends first) ends as transport_error{malformed_stream}, not a reply",
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'content_before_start' },
    },
    check({ result }) {
      expectTransport(result, 'malformed_stream');
    },
  },
  {
    id: 'block_start_before_response_start',
    title:
      "a stream whose first block opens (Anthropic's content_block_start) before the event that opens the response, which follows at once with the rest, ends as transport_error{malformed_stream}, not a reply",
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'block_start_before_start' },
    },
    check({ result }) {
      expectTransport(result, 'malformed_stream');
    },
  },
  {
    id: 'stop_before_response_start',
    title:
      "a stream whose stop reason (Anthropic's message_delta) comes before the event that opens the response, which follows with the rest, ends as transport_error{malformed_stream}, not a reply",
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'stop_before_start' },
    },
    check({ result }) {
      expectTransport(result, 'malformed_stream');
    },
  },
  {
    id: 'duplicate_events',
    title: 'repeated framing events change nothing: one call, text not doubled, in the result or the deltas',
    behaviour: {
      kind: 'stream_fault',
      turn: {
        blocks: [
          { type: 'text', text: 'Looking it up.' },
          { type: 'tool_call', id: 'call_dup', name: 'get_weather', args: '{"city":"Oslo"}' },
        ],
        stop: 'tool_use',
        usage: USAGE,
      },
      fault: { type: 'duplicate' },
    },
    check({ result, deltas, streams }) {
      expectType(result, 'tool_use');
      assert.equal(result.text, 'Looking it up.');
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        [{ id: 'call_dup', name: 'get_weather', args: { city: 'Oslo' } }],
      );
      expectUsage(result, USAGE.input, USAGE.output);
      if (!streams) return;
      // What a listener is sent is not doubled either (a repeated event is applied once, its delta sent once).
      assert.equal(streamedText(deltas), 'Looking it up.', 'the streamed text is not doubled');
      assert.equal(deltas.flatMap((d) => (d.kind === 'tool_args' ? [d.json] : [])).join(''), '{"city":"Oslo"}', 'the streamed arguments are not doubled');
    },
  },
  {
    id: 'never_rejects_throwing_listener',
    title: 'a delta listener that throws does not break the call',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE } },
    drive: 'throwing_listener',
    check({ result }) {
      expectType(result, 'reply');
      assert.equal(result.text, TEXT);
    },
  },
  {
    id: 'never_rejects_unsendable_request',
    title: 'a request that cannot be serialized settles as transport_error{invalid_request}, never a rejection',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE } },
    request: (base) => ({
      ...base,
      tools: [{ name: 'bad_schema', description: 'A schema JSON cannot carry.', inputSchema: { type: 'object', default: 10n } }],
    }),
    check({ result }) {
      expectTransport(result, 'invalid_request');
    },
  },
  {
    id: 'exactly_one_result',
    title: 'the call settles once at the end of the response even if the connection stays open, and no delta follows',
    behaviour: {
      kind: 'stream_fault',
      turn: { blocks: [{ type: 'text', text: TEXT }], stop: 'end', usage: USAGE },
      fault: { type: 'stall_after_end' },
    },
    check({ result }) {
      // The runner checks that nothing arrives after settlement; here: not a timeout.
      expectType(result, 'reply');
      assert.equal(result.text, TEXT);
    },
  },
  {
    id: 'delta_inside_thinking',
    title:
      'text and arguments streamed inside a thinking block (as a compatible server or a proxy that renumbers blocks may send them) are ignored like the thinking itself: the text, the call and the deltas are those of the answer',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'text', text: 'Checking Kyiv.' },
          { type: 'tool_call', id: 'call_tk1', name: 'get_weather', args: '{"city":"Kyiv"}' },
        ],
        stop: 'tool_use',
        usage: USAGE,
        thinkingFirst: true,
        strayDeltas: true,
      },
    },
    check({ result, deltas, streams }) {
      expectType(result, 'tool_use');
      assert.equal(result.text, 'Checking Kyiv.');
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        [{ id: 'call_tk1', name: 'get_weather', args: { city: 'Kyiv' } }],
      );
      assert.deepEqual(callIds(result.content), ['call_tk1'], 'the content holds the one call, and nothing made of the thinking block');
      expectUsage(result, USAGE.input, USAGE.output);
      if (!streams && deltas.length === 0) return;
      assert.equal(streamedText(deltas), 'Checking Kyiv.', 'the text deltas add up to the text, and nothing else');
      assert.equal(deltas.map((d) => (d.kind === 'tool_args' ? d.json : '')).join(''), '{"city":"Kyiv"}', "the argument deltas add up to the call's arguments");
    },
  },
  {
    id: 'call_without_an_id',
    title:
      'a tool call no chunk of which carries an id (a compatible server that omits them) is still a call: its name and arguments read, its id a string (the empty string on Chat), never undefined',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [{ type: 'tool_call', id: 'call_n1', name: 'get_weather', args: '{"city":"Graz"}' }],
        stop: 'tool_use',
        usage: USAGE,
        noCallIds: true,
      },
    },
    check({ result }) {
      expectType(result, 'tool_use');
      assert.deepEqual(
        result.calls.map((c) => ({ id: typeof c.id, name: c.name, args: c.args })),
        [{ id: 'string', name: 'get_weather', args: { city: 'Graz' } }],
      );
    },
  },
  {
    id: 'call_id_after_its_first_chunk',
    title: "parallel tool calls whose ids arrive in a chunk after the call's first (its index and name come first) keep those ids",
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'tool_call', id: 'call_i1', name: 'get_weather', args: '{"city":"Graz"}' },
          { type: 'tool_call', id: 'call_i2', name: 'get_time', args: '{"timezone":"Europe/Vienna"}' },
        ],
        stop: 'tool_use',
        usage: USAGE,
        lateCallIds: true,
      },
    },
    check({ result, deltas, streams }) {
      expectType(result, 'tool_use');
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        [
          { id: 'call_i1', name: 'get_weather', args: { city: 'Graz' } },
          { id: 'call_i2', name: 'get_time', args: { timezone: 'Europe/Vienna' } },
        ],
      );
      assert.deepEqual(callIds(result.content), ['call_i1', 'call_i2'], 'the content holds both calls by their ids');
      if (!streams) return;
      // The chunk that brings an id carries no argument text: each call streams its own arguments and nothing more.
      const streamed = new Map<number, string>();
      for (const d of deltas) if (d.kind === 'tool_args') streamed.set(d.index, (streamed.get(d.index) ?? '') + d.json);
      assert.deepEqual([...streamed.values()], ['{"city":"Graz"}', '{"timezone":"Europe/Vienna"}'], "each call's streamed arguments are its arguments");
    },
  },
  {
    id: 'content_as_typed_parts',
    title:
      "an answer whose content is an array of typed parts, its thinking first (Mistral's reasoning models, in a complete body and in each chunk), gives the text parts as the text and the calls after them; the thinking is neither text nor a call",
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'text', text: 'Checking Turin.' },
          { type: 'tool_call', id: 'call_p1', name: 'get_weather', args: '{"city":"Turin"}' },
        ],
        stop: 'tool_use',
        usage: USAGE,
        contentAsParts: true,
      },
    },
    check({ result, deltas, streams }) {
      expectType(result, 'tool_use');
      assert.equal(result.text, 'Checking Turin.');
      assert.deepEqual(
        result.content.map((b) => (b.type === 'text' ? `text:${b.text}` : `call:${b.id}`)),
        ['text:Checking Turin.', 'call:call_p1'],
        'content: the text, then the call',
      );
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        [{ id: 'call_p1', name: 'get_weather', args: { city: 'Turin' } }],
      );
      if (streams || deltas.length > 0) assert.equal(streamedText(deltas), 'Checking Turin.', 'the text deltas add up to the text, without the thinking');
    },
  },
  {
    id: 'content_parts_with_a_null',
    title:
      'an answer whose array of typed parts also holds a null (as a compatible server or a gateway that drops a part may leave it), in a complete body and in each chunk, gives the text parts as the text; the null is nothing',
    behaviour: {
      kind: 'turn',
      turn: { blocks: [{ type: 'text', text: 'Turin is sunny.' }], stop: 'end', usage: USAGE, contentAsParts: true, nullContentPart: true },
    },
    check({ result, deltas, streams }) {
      expectType(result, 'reply');
      assert.equal(result.text, 'Turin is sunny.');
      assert.deepEqual(result.content, [{ type: 'text', text: 'Turin is sunny.' }]);
      if (streams || deltas.length > 0) assert.equal(streamedText(deltas), 'Turin is sunny.', 'the text deltas add up to the text');
    },
  },
  {
    id: 'usage_on_every_chunk',
    title:
      'an answer streamed with usage on every chunk (a compatible server with continuous usage stats) is read to its finish: the whole text and call, and the final counts',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'text', text: 'Checking Turin.' },
          { type: 'tool_call', id: 'call_u1', name: 'get_weather', args: '{"city":"Turin"}' },
        ],
        stop: 'tool_use',
        usage: USAGE,
        usageOnEveryChunk: true,
      },
    },
    check({ result }) {
      expectType(result, 'tool_use');
      assert.equal(result.text, 'Checking Turin.');
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        [{ id: 'call_u1', name: 'get_weather', args: { city: 'Turin' } }],
      );
      assert.equal(result.usage?.inputTokens, USAGE.input);
      assert.equal(result.usage?.outputTokens, USAGE.output);
    },
  },
  {
    id: 'only_choice_zero_is_the_answer',
    title:
      'a response whose chunks (and complete body) carry a second choice, index 1, listed before choice 0, gives choice 0 alone: its text, its parallel calls, its stop; nothing of choice 1',
    behaviour: {
      kind: 'turn',
      turn: {
        blocks: [
          { type: 'text', text: 'Checking Oslo and Bergen.' },
          { type: 'tool_call', id: 'call_c1', name: 'get_weather', args: '{"city":"Oslo"}' },
          { type: 'tool_call', id: 'call_c2', name: 'get_weather', args: '{"city":"Bergen"}' },
        ],
        stop: 'tool_use',
        usage: USAGE,
        otherChoiceFirst: true,
      },
    },
    check({ result, deltas, streams }) {
      expectType(result, 'tool_use');
      assert.equal(result.text, 'Checking Oslo and Bergen.');
      assert.deepEqual(
        result.content.map((b) => (b.type === 'text' ? `text:${b.text}` : `call:${b.id}`)),
        ['text:Checking Oslo and Bergen.', 'call:call_c1', 'call:call_c2'],
        'content: the text, then both calls',
      );
      assert.deepEqual(
        result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        [
          { id: 'call_c1', name: 'get_weather', args: { city: 'Oslo' } },
          { id: 'call_c2', name: 'get_weather', args: { city: 'Bergen' } },
        ],
      );
      expectUsage(result, USAGE.input, USAGE.output);
      if (streams || deltas.length > 0) assert.equal(streamedText(deltas), 'Checking Oslo and Bergen.', "the text deltas add up to choice 0's text alone");
    },
  },
  {
    id: 'streamed_reply_ending_where_a_key_could_begin',
    title:
      'a streamed reply whose last character could begin a form of the API key (a `%`, as "rose by 12%" ends) lets that held-back tail out when the call ends: the streamed text, joined, is the whole reply',
    behaviour: { kind: 'turn', turn: { blocks: [{ type: 'text', text: 'Sales rose by 12%' }], stop: 'end', usage: USAGE } },
    check({ result, deltas, streams }) {
      expectType(result, 'reply');
      assert.equal(result.text, 'Sales rose by 12%');
      // With a key, the credential scrubber holds the `%` back (it may begin the key percent-encoded) until the call ends.
      if (streams)
        assert.equal(streamedText(deltas), 'Sales rose by 12%', 'the streamed text, joined, is the whole reply: the tail held back is let out at the end');
    },
  },
  {
    id: 'content_filter_details_name_the_filter',
    title:
      "a content filter's refusal that carries the provider's details names the filter in them (OpenAI Chat finish_reason, Responses incomplete_details.reason), not an empty object",
    behaviour: {
      kind: 'turn',
      turn: { blocks: [{ type: 'text', text: 'Here is how to' }], stop: 'content_filter', usage: USAGE },
    },
    check({ result }) {
      expectType(result, 'refusal');
      // Details are the provider's own words: a harness whose wire has none gives none (the scripted fake).
      if (result.details === undefined) return;
      assert.match(JSON.stringify(result.details), /"content_filter"/, 'the details say the content filter stopped the output');
    },
  },
];

export type ContractCaseId = string;

/** The case list as data (for a CLI or a report). */
export const CONTRACT_CASE_LIST: readonly { readonly id: string; readonly title: string }[] = CONTRACT_CASES.map(({ id, title }) => ({
  id,
  title,
}));
