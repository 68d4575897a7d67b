/**
 * The contract harness for the in-process scripted fake: each behaviour becomes
 * the normalized result an adapter would produce for it, with its deltas and
 * timing (a stall is latency after the first delta). Byte-level stream faults
 * have no equivalent in-process and are unsupported.
 */
import type { ModelDelta, ModelResult } from '../../src/kernel/index.ts';
import { ScriptedModelClient, type ScriptedEntry } from '../fake/scripted.ts';
import { transportError, overflow } from '../fake/results.ts';
import type { Collected, StopCategory } from '../shared/assemble.ts';
import { finishResult } from '../shared/assemble.ts';
import { transportFailure } from '../shared/results.ts';
import { tokenCount } from '../shared/token-count.ts';
import { pieces, type WireTurn } from '../wire-fakes/turn.ts';
import type { Behaviour } from './behaviours.ts';
import type { ContractHarness, HarnessClient, Unsupported } from './harness.ts';

const NO_WIRE = 'byte-level stream fault: the in-process fake has no wire to corrupt (script the normalized result to simulate its outcome)';
const NO_SERIALIZATION = 'the in-process fake does not serialize requests';
const NO_GATEWAY = 'the in-process fake has no HTTP answer for a gateway to stand in for';
const NO_CREDENTIAL = 'the in-process fake is given no credential to quote';
const NO_FETCH = 'the in-process fake reads no body through a fetch of its own';
const NO_READS = 'the in-process fake hands over each delta on its own: it has no network reads to buffer';
const NO_STATUS = 'the in-process fake has no status of a response to write: it scripts the normalized result';
const NO_FINISH = 'the in-process fake has no finish reason to write: it scripts the normalized result';

/** How long a stall lasts in the script: far beyond any case's timeout. */
const STALL_MS = 60_000;

type EndingStop = Exclude<WireTurn['stop'], 'missing'>;

function stopCategory(stop: EndingStop): StopCategory {
  if (typeof stop === 'object') return 'unknown';
  if (stop === 'content_filter') return 'refusal';
  return stop === 'end' || stop === 'stop_sequence' ? 'reply' : stop;
}

function stopRaw(stop: EndingStop): string {
  if (typeof stop === 'object') return stop.unknown;
  return {
    end: 'end_turn',
    stop_sequence: 'stop_sequence',
    tool_use: 'tool_use',
    max_tokens: 'max_tokens',
    refusal: 'refusal',
    content_filter: 'content_filter',
    overflow: 'model_context_window_exceeded',
  }[stop];
}

/** The result an adapter produces for this turn, built by the same assembly code. */
export function resultForTurn(turn: WireTurn): ModelResult {
  // As the adapters read usage: a count that is not one is left out (shared/token-count.ts).
  const input = tokenCount(turn.usage.input);
  const output = tokenCount(turn.usage.output);
  const cacheRead = tokenCount(turn.usage.cacheRead);
  const cacheWrite = tokenCount(turn.usage.cacheWrite);
  const usage =
    input === undefined && output === undefined
      ? undefined
      : {
          inputTokens: input ?? 0,
          outputTokens: output ?? 0,
          ...(cacheRead !== undefined ? { cacheReadTokens: cacheRead } : {}),
          ...(cacheWrite !== undefined ? { cacheWriteTokens: cacheWrite } : {}),
        };
  // Nothing says the answer is whole: the adapters' malformed_stream, with the usage that was sent.
  if (turn.stop === 'missing') return transportFailure('malformed_stream', 'the response ended without a stop reason', { usage });
  // A call the token limit cut is never finished (as every wire fake sends it), whatever its arguments so far.
  // Unless the turn says the limit came just after the last call was whole (limitAfterWholeCall).
  const cut = turn.stop === 'max_tokens' && !turn.limitAfterWholeCall ? turn.blocks.at(-1) : undefined;
  const collected: Collected = {
    blocks: turn.blocks.map((b) =>
      b.type === 'text' ? { type: 'text', text: b.text } : { type: 'tool_call', id: b.id, name: b.name, argsText: b.args, finished: b !== cut },
    ),
    ...(usage ? { usage } : {}),
    ...(turn.stop === 'refusal' && turn.refusal?.text ? { refusalText: turn.refusal.text } : {}),
  };
  return finishResult(collected, {
    category: stopCategory(turn.stop),
    raw: stopRaw(turn.stop),
    ...(turn.refusal?.details !== undefined ? { details: turn.refusal.details } : {}),
  });
}

export function deltasForTurn(turn: WireTurn): ModelDelta[] {
  const deltas: ModelDelta[] = [];
  let ordinal = 0;
  for (const block of turn.blocks) {
    if (block.type === 'text') {
      // As the adapters stream it: an empty text block sends no text delta.
      for (const text of pieces(block.text)) if (text !== '') deltas.push({ kind: 'text', text });
    } else {
      const index = ordinal++;
      deltas.push({ kind: 'tool_call_start', index, id: block.id, name: block.name });
      for (const json of block.args ? pieces(block.args) : []) deltas.push({ kind: 'tool_args', index, json });
    }
  }
  // As the adapters stream it: a refusal's text streams as text, as a UI shows it.
  if (turn.stop === 'refusal' && turn.refusal?.text) for (const text of pieces(turn.refusal.text)) deltas.push({ kind: 'text', text });
  return deltas;
}

function httpErrorResult(behaviour: Extract<Behaviour, { kind: 'http_error' }>): ModelResult {
  const status = behaviour.status;
  // As the adapters read it: retry-after-ms wins (a blank or negative one says nothing), else retry-after; on every status worth retrying.
  const retryAfter =
    typeof behaviour.retryAfterMsHeader === 'number' && behaviour.retryAfterMsHeader >= 0
      ? { retryAfterMs: behaviour.retryAfterMsHeader }
      : typeof behaviour.retryAfterSeconds === 'number' && behaviour.retryAfterSeconds >= 0
        ? { retryAfterMs: behaviour.retryAfterSeconds * 1000 }
        : {};
  switch (behaviour.error) {
    case 'overflow':
      return overflow('request', 'prompt is too long');
    case 'overflow_input_and_max_tokens':
      return overflow('request', 'input length and max_tokens exceed context limit');
    case 'overflow_by_code':
      return overflow('request', 'The request has 131072 tokens, over the 128000 this model takes.');
    case 'overflow_by_words':
      return overflow('request', "This model's maximum context length is 128000 tokens.");
    case 'auth':
      return transportError('auth', { status: status ?? 401 });
    case 'forbidden':
      return transportError('auth', { status: status ?? 403 });
    case 'rate_limited':
      return transportError('rate_limited', { status: status ?? 429, ...retryAfter });
    case 'quota':
      return transportError('auth', { status: status ?? 429 });
    case 'server_error':
      return transportError('server_error', { status: status ?? 500, ...retryAfter });
    case 'overloaded':
      return transportError('overloaded', { status: status ?? 529, ...retryAfter });
    case 'request_timeout':
      return transportError('timeout', { status: status ?? 408, ...retryAfter });
    case 'request_too_large':
      return overflow('request', 'Request exceeds the maximum allowed number of bytes.');
    case 'invalid_request':
      return transportError('invalid_request', { status: status ?? 400 });
  }
}

function entryFor(behaviour: Behaviour): ScriptedEntry | Unsupported {
  switch (behaviour.kind) {
    case 'turn':
      return { result: resultForTurn(behaviour.turn), deltas: deltasForTurn(behaviour.turn) };
    case 'http_error':
      return { result: httpErrorResult(behaviour) };
    case 'reset_before_response':
      return { result: transportError('network', { message: 'connection reset' }) };
    case 'connect_timeout':
      return { result: transportError('timeout', { message: 'connect timeout' }) };
    case 'empty_stream':
      return { unsupported: NO_WIRE };
    case 'gateway_answer':
      return { unsupported: NO_GATEWAY };
    case 'stream_fault': {
      const deltas = deltasForTurn(behaviour.turn);
      const first = deltas.slice(0, 1);
      switch (behaviour.fault.type) {
        case 'stall':
          if (behaviour.fault.fetchDropsSignal) return { unsupported: NO_FETCH };
          if (behaviour.fault.oneRead) return { unsupported: NO_READS };
          return { result: resultForTurn(behaviour.turn), deltas: first, tailLatencyMs: STALL_MS };
        case 'reset':
          if (behaviour.fault.failsWith) return { unsupported: NO_FETCH };
          // Its reset comes after the first delta, never after a usage frame: it has no frames.
          if (behaviour.fault.after === 'usage') return { unsupported: NO_WIRE };
          return { result: transportError('network', { message: 'connection reset mid-stream' }), deltas: first };
        case 'error_event':
          if (behaviour.fault.failedWithUsage) return { unsupported: NO_WIRE };
          if (behaviour.fault.error === 'rate_limited' || behaviour.fault.error === 'rate_limited_by_type')
            return { result: transportError('rate_limited', { message: 'Rate limit reached' }), deltas: first };
          if (behaviour.fault.error === 'overflow') {
            // As the Responses adapter reads it: after streamed text, that text is kept and the overflow is at generation.
            const text = behaviour.fault.after === 'text_delta' && first[0]?.kind === 'text' ? first[0].text : undefined;
            if (text === undefined) return { result: overflow('request', 'context length exceeded') };
            const result: ModelResult = {
              type: 'context_window_exceeded',
              at: 'generation',
              content: [{ type: 'text', text }],
              message: 'context length exceeded',
            };
            return { result, deltas: first };
          }
          if (behaviour.fault.error === 'request_timeout') return { result: transportError('timeout', { message: 'Request timed out' }), deltas: first };
          if (behaviour.fault.error === 'untyped') return { result: transportError('server_error', { message: 'The model worker stopped' }), deltas: first };
          if (behaviour.fault.error === 'invalid_request') return { result: transportError('invalid_request', { message: 'Invalid prompt' }), deltas: first };
          if (behaviour.fault.error === 'auth') return { result: transportError('auth', { message: 'invalid x-api-key' }), deltas: first };
          return { result: transportError('overloaded', { message: 'Overloaded' }), deltas: first };
        case 'stall_after_end':
          return { result: resultForTurn(behaviour.turn), deltas };
        case 'malformed':
        case 'drop_end':
        case 'without':
        case 'duplicate':
        case 'content_before_start':
        case 'stop_before_start':
        case 'block_start_before_start':
        case 'null_data':
        case 'without_index':
          return { unsupported: NO_WIRE };
      }
    }
  }
}

export function createScriptedHarness(): ContractHarness {
  return {
    name: 'fake (in-process scripted)',
    unsupported: {
      never_rejects_unsendable_request: NO_SERIALIZATION,
      auth_401_quotes_the_key: NO_CREDENTIAL,
      streamed_reply_quotes_the_key: NO_CREDENTIAL,
      streamed_reply_quotes_the_key_in_hex: NO_CREDENTIAL,
      streamed_call_id_quotes_the_key: NO_CREDENTIAL,
      streamed_call_name_quotes_the_key: NO_CREDENTIAL,
      reply_quotes_the_key_url_encoded_beside_a_latin1_byte: NO_CREDENTIAL,
      malformed_stream: NO_WIRE,
      stream_without_final_event: NO_WIRE,
      duplicate_events: NO_WIRE,
      tool_call_never_closed: NO_WIRE,
      content_before_response_start: NO_WIRE,
      empty_stream: NO_WIRE,
      response_status_neither_completed_nor_incomplete: NO_STATUS,
      complete_body_without_status_not_a_reply: NO_STATUS,
      tool_calls_finished_as_function_call: NO_FINISH,
      gateway_502_without_provider_error: NO_GATEWAY,
      gateway_redirect_without_location: NO_GATEWAY,
      payment_required_402: NO_GATEWAY,
    },
    clientFor({ behaviour }): HarnessClient | Unsupported {
      const entry = entryFor(behaviour);
      if ('unsupported' in entry) return entry;
      // No request count: the fake records every call it receives, even one aborted before it began.
      return { client: new ScriptedModelClient([entry], { name: 'scripted' }) };
    },
  };
}
