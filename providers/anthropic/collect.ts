/**
 * Collects an Anthropic response: raw stream events one by one, or a complete
 * (non-streaming) message. Tolerates what real streams do (pings, duplicate
 * framing events, thinking and other block types it does not use) and reports
 * what breaks the protocol as a malformed stream.
 */
import type { ModelDelta, ModelResult } from '../../src/kernel/index.ts';
import type { CollectedBlock, CollectedCall, CollectedText } from '../shared/assemble.ts';
import { emptyCollected, finishResult } from '../shared/assemble.ts';
import { transportFailure } from '../shared/results.ts';
import { MalformedStreamError } from '../shared/thrown.ts';
import { anthropicStop } from './stop.ts';
import { mergeAnthropicUsage, type AnthropicUsageLike } from './usage.ts';
import { isPlainObject } from './request.ts';

interface RawEvent {
  type?: unknown;
  index?: unknown;
  message?: { usage?: AnthropicUsageLike };
  content_block?: { type?: unknown; id?: unknown; name?: unknown; text?: unknown; input?: unknown };
  delta?: { type?: unknown; text?: unknown; partial_json?: unknown; stop_reason?: unknown; stop_details?: unknown };
  usage?: AnthropicUsageLike;
}

type Slot = { block: CollectedBlock; ordinal: number; startInput?: Record<string, unknown> } | 'ignored';

export class AnthropicStreamCollector {
  readonly collected = emptyCollected();
  /** message_stop was seen: the response is complete. */
  done = false;
  #started = false;
  #stopReason: string | null | undefined;
  #stopDetails: unknown;
  #slots = new Map<number, Slot>();
  #calls = 0;

  handle(event: unknown, emit: (delta: ModelDelta) => void): void {
    if (this.done || typeof event !== 'object' || event === null) return;
    const e = event as RawEvent;
    switch (e.type) {
      case 'message_start':
        if (this.#started) return; // a repeated message_start changes nothing
        this.#started = true;
        this.collected.usage = mergeAnthropicUsage(this.collected.usage, e.message?.usage);
        return;
      case 'content_block_start':
        this.#requireStart(e.type);
        return this.#blockStart(e, emit);
      case 'content_block_delta':
        this.#requireStart(e.type);
        return this.#blockDelta(e, emit);
      case 'content_block_stop': {
        const slot = this.#slots.get(Number(e.index));
        if (slot && slot !== 'ignored' && slot.block.type === 'tool_call') {
          const call = slot.block;
          if (call.argsText.trim() === '' && slot.startInput && Object.keys(slot.startInput).length > 0) {
            call.parsedArgs = slot.startInput; // the input came whole in content_block_start
          }
          call.finished = true;
        }
        return;
      }
      case 'message_delta':
        this.#requireStart(e.type);
        if (e.delta && 'stop_reason' in e.delta) this.#stopReason = e.delta.stop_reason as string | null;
        if (e.delta && 'stop_details' in e.delta) this.#stopDetails = e.delta.stop_details;
        this.collected.usage = mergeAnthropicUsage(this.collected.usage, e.usage);
        return;
      case 'message_stop':
        this.#requireStart(e.type);
        this.done = true;
        return;
      default:
        return; // ping, and event types added after this adapter was written
    }
  }

  #requireStart(type: unknown): void {
    if (!this.#started) throw new MalformedStreamError(`${String(type)} arrived before message_start`);
  }

  #blockStart(e: RawEvent, emit: (delta: ModelDelta) => void): void {
    const index = Number(e.index);
    if (!Number.isInteger(index)) throw new MalformedStreamError('content_block_start without an index');
    if (this.#slots.has(index)) return; // repeated
    const block = e.content_block ?? {};
    if (block.type === 'text') {
      const text: CollectedText = { type: 'text', text: '' };
      this.collected.blocks.push(text);
      this.#slots.set(index, { block: text, ordinal: -1 });
      if (typeof block.text === 'string' && block.text) {
        text.text += block.text;
        emit({ kind: 'text', text: block.text });
      }
    } else if (block.type === 'tool_use') {
      const call: CollectedCall = {
        type: 'tool_call',
        id: String(block.id ?? ''),
        name: String(block.name ?? ''),
        argsText: '',
        finished: false,
      };
      const ordinal = this.#calls++;
      this.collected.blocks.push(call);
      this.#slots.set(index, { block: call, ordinal, ...(isPlainObject(block.input) ? { startInput: block.input } : {}) });
      emit({ kind: 'tool_call_start', index: ordinal, id: call.id, name: call.name });
    } else {
      this.#slots.set(index, 'ignored'); // thinking, fallback, server tool blocks…
    }
  }

  #blockDelta(e: RawEvent, emit: (delta: ModelDelta) => void): void {
    const slot = this.#slots.get(Number(e.index));
    if (slot === undefined) throw new MalformedStreamError(`content_block_delta for block ${String(e.index)}, which never started`);
    if (slot === 'ignored') return;
    const delta = e.delta ?? {};
    if (delta.type === 'text_delta' && slot.block.type === 'text' && typeof delta.text === 'string') {
      slot.block.text += delta.text;
      if (delta.text) emit({ kind: 'text', text: delta.text });
    } else if (delta.type === 'input_json_delta' && slot.block.type === 'tool_call' && typeof delta.partial_json === 'string') {
      slot.block.argsText += delta.partial_json;
      if (delta.partial_json) emit({ kind: 'tool_args', index: slot.ordinal, json: delta.partial_json });
    }
  }

  /** The one result for what was collected; a stream that ended early is malformed. */
  result(): ModelResult {
    if (!this.#started) return transportFailure('malformed_stream', 'the stream ended before message_start');
    if (!this.done) {
      return transportFailure('malformed_stream', 'the stream ended before message_stop', withUsage(this.collected.usage));
    }
    if (this.#stopReason === undefined || this.#stopReason === null) {
      return transportFailure('malformed_stream', 'message_stop arrived without a stop_reason', withUsage(this.collected.usage));
    }
    return finishResult(this.collected, anthropicStop(this.#stopReason, this.#stopDetails));
  }
}

function withUsage(usage: ReturnType<typeof mergeAnthropicUsage>) {
  return usage ? { usage } : {};
}

interface CompleteMessage {
  content?: unknown;
  stop_reason?: string | null;
  stop_details?: unknown;
  usage?: AnthropicUsageLike;
}

/** A complete (non-streaming) Messages response. */
export function resultFromMessage(message: unknown): ModelResult {
  if (typeof message !== 'object' || message === null || !Array.isArray((message as CompleteMessage).content)) {
    return transportFailure('malformed_stream', 'the response body is not a Messages API message (no content array)');
  }
  const m = message as CompleteMessage;
  const collected = emptyCollected();
  collected.usage = mergeAnthropicUsage(undefined, m.usage);
  const blocks = m.content as { type?: unknown; text?: unknown; id?: unknown; name?: unknown; input?: unknown }[];
  for (const block of blocks) {
    if (block.type === 'text' && typeof block.text === 'string') collected.blocks.push({ type: 'text', text: block.text });
    else if (block.type === 'tool_use') {
      collected.blocks.push({
        type: 'tool_call',
        id: String(block.id ?? ''),
        name: String(block.name ?? ''),
        argsText: '',
        finished: true,
        parsedArgs: block.input ?? {},
      });
    }
  }
  if (m.stop_reason === undefined || m.stop_reason === null) {
    return transportFailure('malformed_stream', 'the message has no stop_reason', withUsage(collected.usage));
  }
  // Cut by the token limit, a trailing tool_use may hold only part of its input: never executable.
  const last = collected.blocks.at(-1);
  if (m.stop_reason === 'max_tokens' && last?.type === 'tool_call') {
    last.finished = false;
    delete last.parsedArgs;
  }
  return finishResult(collected, anthropicStop(m.stop_reason, m.stop_details));
}
