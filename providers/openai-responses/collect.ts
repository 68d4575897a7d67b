/**
 * Collects a Responses API response: streamed events one by one, or a complete
 * response object. Events repeated with the same `sequence_number` are applied
 * once. The response is complete at `response.completed`, `response.incomplete`
 * or `response.failed`.
 */
import type { ModelDelta, ModelResult } from '../../src/kernel/index.ts';
import type { Collected, CollectedCall, CollectedText, FinishOptions, StopInfo } from '../shared/assemble.ts';
import { emptyCollected, finishResult } from '../shared/assemble.ts';
import { classifyFailure } from '../shared/failure.ts';
import { transportFailure } from '../shared/results.ts';
import { isOpenAIOverflow } from '../openai-shared/errors.ts';
import { openAIUsage } from '../openai-shared/usage.ts';

interface Item {
  id?: unknown;
  type?: unknown;
  status?: unknown;
  call_id?: unknown;
  name?: unknown;
  arguments?: unknown;
  content?: { type?: unknown; text?: unknown; refusal?: unknown }[];
}

interface ResponseObject {
  status?: unknown;
  output?: Item[];
  usage?: unknown;
  incomplete_details?: { reason?: unknown } | null;
  error?: { code?: unknown; message?: unknown; type?: unknown } | null;
}

interface Event {
  type?: unknown;
  sequence_number?: unknown;
  output_index?: unknown;
  item_id?: unknown;
  item?: Item;
  delta?: unknown;
  arguments?: unknown;
  refusal?: unknown;
  response?: ResponseObject;
  code?: unknown;
  message?: unknown;
  error?: { code?: unknown; message?: unknown; type?: unknown };
}

type Slot = { kind: 'message'; text: CollectedText } | { kind: 'call'; call: CollectedCall; ordinal: number } | { kind: 'ignored' };

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function messageText(item: Item): { text: string; refusal: string } {
  let text = '';
  let refusal = '';
  for (const part of item.content ?? []) {
    if (part.type === 'output_text' && typeof part.text === 'string') text += part.text;
    if (part.type === 'refusal' && typeof part.refusal === 'string') refusal += part.refusal;
  }
  return { text, refusal };
}

export class ResponsesStreamCollector {
  readonly collected: Collected = emptyCollected();
  done = false;
  #started = false;
  #seen = new Set<number>();
  #slots = new Map<number, Slot>();
  #byItemId = new Map<string, number>();
  #calls = 0;
  #final: ResponseObject | undefined;
  #finalType: string | undefined;
  #errorEvent: { code?: string; message: string; type?: string } | undefined;

  handle(event: unknown, emit: (delta: ModelDelta) => void): void {
    if (this.done || typeof event !== 'object' || event === null) return;
    const e = event as Event;
    if (typeof e.sequence_number === 'number') {
      if (this.#seen.has(e.sequence_number)) return;
      this.#seen.add(e.sequence_number);
    }
    switch (e.type) {
      case 'response.created':
      case 'response.in_progress':
      case 'response.queued':
        this.#started = true;
        return;
      case 'response.output_item.added':
        this.#started = true;
        if (e.item) this.#addItem(Number(e.output_index), e.item, emit);
        return;
      case 'response.output_text.delta': {
        const slot = this.#slot(e);
        const delta = str(e.delta);
        if (slot?.kind === 'message' && delta) {
          slot.text.text += delta;
          emit({ kind: 'text', text: delta });
        }
        return;
      }
      case 'response.refusal.delta': {
        const delta = str(e.delta);
        if (delta) {
          this.collected.refusalText = (this.collected.refusalText ?? '') + delta;
          emit({ kind: 'text', text: delta });
        }
        return;
      }
      case 'response.refusal.done':
        if (typeof e.refusal === 'string') this.collected.refusalText = e.refusal;
        return;
      case 'response.function_call_arguments.delta': {
        const slot = this.#slot(e);
        const delta = str(e.delta);
        if (slot?.kind === 'call' && delta) {
          slot.call.argsText += delta;
          emit({ kind: 'tool_args', index: slot.ordinal, json: delta });
        }
        return;
      }
      case 'response.function_call_arguments.done': {
        const slot = this.#slot(e);
        if (slot?.kind === 'call' && typeof e.arguments === 'string') slot.call.argsText = e.arguments;
        return;
      }
      case 'response.output_item.done':
        if (e.item) this.#itemDone(Number(e.output_index), e.item, emit);
        return;
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        this.#final = e.response ?? {};
        this.#finalType = e.type;
        this.done = true;
        return;
      case 'error': {
        // The error event's fields are either top-level or under `error`.
        const source = e.error ?? e;
        this.#errorEvent = {
          message: str(source.message) ?? 'error event in the stream',
          ...(str(source.code) ? { code: str(source.code)! } : {}),
          ...(str((source as { type?: unknown }).type) && source !== e ? { type: str((source as { type?: unknown }).type)! } : {}),
        };
        this.done = true;
        return;
      }
      default:
        return;
    }
  }

  #slot(e: Event): Slot | undefined {
    const index = typeof e.output_index === 'number' ? e.output_index : this.#byItemId.get(String(e.item_id));
    return index === undefined ? undefined : this.#slots.get(index);
  }

  #addItem(index: number, item: Item, emit: (delta: ModelDelta) => void): Slot {
    const existing = this.#slots.get(index);
    if (existing) return existing;
    let slot: Slot;
    if (item.type === 'message') {
      const text: CollectedText = { type: 'text', text: '' };
      this.collected.blocks.push(text);
      slot = { kind: 'message', text };
    } else if (item.type === 'function_call') {
      const call: CollectedCall = {
        type: 'tool_call',
        id: String(item.call_id ?? item.id ?? ''),
        name: String(item.name ?? ''),
        argsText: str(item.arguments) ?? '',
        finished: false,
      };
      this.collected.blocks.push(call);
      slot = { kind: 'call', call, ordinal: this.#calls++ };
      emit({ kind: 'tool_call_start', index: slot.ordinal, id: call.id, name: call.name });
    } else {
      slot = { kind: 'ignored' }; // reasoning, built-in tool calls…
    }
    this.#slots.set(index, slot);
    if (typeof item.id === 'string') this.#byItemId.set(item.id, index);
    return slot;
  }

  #itemDone(index: number, item: Item, emit: (delta: ModelDelta) => void): void {
    const slot = this.#addItem(index, item, emit);
    if (slot.kind === 'message') {
      const { text, refusal } = messageText(item);
      // The finished item is authoritative when the deltas fell short of it.
      if (text && text !== slot.text.text) slot.text.text = text;
      if (refusal) this.collected.refusalText = refusal;
    } else if (slot.kind === 'call') {
      if (typeof item.arguments === 'string') slot.call.argsText = item.arguments;
      slot.call.finished = item.status !== 'incomplete';
    }
  }

  result(options: FinishOptions): ModelResult {
    if (this.#errorEvent) {
      const info = {
        message: this.#errorEvent.message,
        ...(this.#errorEvent.code ? { code: this.#errorEvent.code } : {}),
        ...(this.#errorEvent.type ? { type: this.#errorEvent.type } : {}),
      };
      return failureResult(info, this.collected);
    }
    if (!this.done) {
      const where = this.#started ? 'before response.completed' : 'before response.created';
      return transportFailure('malformed_stream', `the stream ended ${where}`);
    }
    const final = this.#final ?? {};
    const usage = openAIUsage(final.usage);
    if (usage) this.collected.usage = usage;
    if (this.collected.blocks.length === 0 && Array.isArray(final.output)) collectOutput(final.output, this.collected);
    return endingResult(this.#finalType, final, this.collected, options);
  }
}

function failureResult(info: { message: string; code?: string; type?: string }, collected: Collected): ModelResult {
  const usage = collected.usage ? { usage: collected.usage } : {};
  const produced = collected.blocks.some((b) => (b.type === 'text' ? b.text !== '' : true));
  if (isOpenAIOverflow(info) && produced) {
    const content = collected.blocks.flatMap((b) => (b.type === 'text' && b.text ? [{ type: 'text' as const, text: b.text }] : []));
    return { type: 'context_window_exceeded', at: 'generation', content, message: info.message, ...usage };
  }
  const result = classifyFailure({ message: info.message, ...(info.code ? { code: info.code } : {}), type: info.type ?? info.code }, isOpenAIOverflow);
  return { ...result, ...usage };
}

function endingResult(finalType: string | undefined, final: ResponseObject, collected: Collected, options: FinishOptions): ModelResult {
  const status = str(final.status) ?? (finalType === 'response.completed' ? 'completed' : finalType === 'response.failed' ? 'failed' : 'incomplete');
  if (finalType === 'response.failed' || status === 'failed') {
    const error = final.error ?? {};
    const message = str(error.message) ?? 'the response failed';
    return failureResult(
      { message, ...(str(error.code) ? { code: str(error.code)! } : {}), ...(str(error.type) ? { type: str(error.type)! } : {}) },
      collected,
    );
  }
  const refused = (collected.refusalText ?? '') !== '';
  let stop: StopInfo;
  if (status === 'completed') {
    for (const block of collected.blocks) if (block.type === 'tool_call') block.finished = true;
    stop = refused ? { category: 'refusal', raw: status } : { category: 'reply', raw: status };
  } else if (status === 'incomplete') {
    const reason = str(final.incomplete_details?.reason);
    if (reason === 'max_output_tokens') stop = { category: 'max_tokens', raw: reason };
    else if (reason === 'content_filter') stop = { category: 'refusal', raw: reason, details: { incomplete_reason: reason } };
    else stop = { category: 'unknown', raw: reason ?? status };
  } else {
    stop = { category: 'unknown', raw: status };
  }
  return finishResult(collected, stop, options);
}

function collectOutput(output: Item[], collected: Collected): void {
  for (const item of output) {
    if (item.type === 'message') {
      const { text, refusal } = messageText(item);
      collected.blocks.push({ type: 'text', text });
      if (refusal) collected.refusalText = (collected.refusalText ?? '') + refusal;
    } else if (item.type === 'function_call') {
      collected.blocks.push({
        type: 'tool_call',
        id: String(item.call_id ?? item.id ?? ''),
        name: String(item.name ?? ''),
        argsText: str(item.arguments) ?? '',
        finished: item.status !== 'incomplete' && item.status !== 'in_progress',
      });
    }
  }
}

/** A complete (non-streaming) response object. */
export function resultFromResponse(body: unknown, options: FinishOptions): ModelResult {
  if (typeof body !== 'object' || body === null || !Array.isArray((body as ResponseObject).output)) {
    return transportFailure('malformed_stream', 'the response body is not a Responses API response (no output array)');
  }
  const response = body as ResponseObject;
  const collected = emptyCollected();
  const usage = openAIUsage(response.usage);
  if (usage) collected.usage = usage;
  collectOutput(response.output ?? [], collected);
  const status = str(response.status);
  const finalType = status === 'completed' ? 'response.completed' : status === 'failed' ? 'response.failed' : 'response.incomplete';
  return endingResult(finalType, response, collected, options);
}
