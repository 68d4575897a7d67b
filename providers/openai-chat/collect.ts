/**
 * Collects a Chat Completions response: streamed chunks one by one, or a
 * complete (non-streaming) completion. Only choice 0 is read (one completion is
 * requested). The response is complete once the finish reason and the usage
 * chunk have arrived.
 */
import type { ModelDelta, ModelResult } from '../../src/kernel/index.ts';
import type { CollectedCall, FinishOptions } from '../shared/assemble.ts';
import { appendText, emptyCollected, finishResult } from '../shared/assemble.ts';
import { transportFailure } from '../shared/results.ts';
import { openAIUsage } from '../openai-shared/usage.ts';
import { chatStop } from './stop.ts';

/**
 * The text of content given as an array of typed parts, not a string (Mistral's
 * reasoning models, in a complete message and in each chunk): its `text` parts
 * in order. A `thinking` part, and any other, is not the answer.
 */
function partsText(parts: readonly unknown[]): string {
  let text = '';
  for (const part of parts) {
    if (typeof part !== 'object' || part === null) continue;
    const { type, text: piece } = part as { type?: unknown; text?: unknown };
    if (type === 'text' && typeof piece === 'string') text += piece;
  }
  return text;
}

interface ChunkToolCall {
  index?: unknown;
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

interface Chunk {
  choices?: { index?: unknown; delta?: { content?: unknown; refusal?: unknown; tool_calls?: ChunkToolCall[] | null }; finish_reason?: unknown }[];
  usage?: unknown;
}

export class ChatStreamCollector {
  readonly collected = emptyCollected();
  done = false;
  #chunks = 0;
  #finish: string | undefined;
  #usageSeen = false;
  #calls = new Map<number, { call: CollectedCall; ordinal: number }>();

  handle(chunk: unknown, emit: (delta: ModelDelta) => void): void {
    if (this.done || typeof chunk !== 'object' || chunk === null) return;
    this.#chunks++;
    const c = chunk as Chunk;
    if (c.usage !== undefined && c.usage !== null) {
      const usage = openAIUsage(c.usage);
      if (usage) this.collected.usage = usage;
      this.#usageSeen = true;
    }
    const choice = Array.isArray(c.choices) ? (c.choices.find((x) => x.index === 0) ?? c.choices[0]) : undefined;
    if (choice) {
      const delta = choice.delta ?? {};
      const text = typeof delta.content === 'string' ? delta.content : Array.isArray(delta.content) ? partsText(delta.content) : '';
      if (text !== '') {
        appendText(this.collected, text);
        emit({ kind: 'text', text });
      }
      if (typeof delta.refusal === 'string' && delta.refusal !== '') {
        this.collected.refusalText = (this.collected.refusalText ?? '') + delta.refusal;
        emit({ kind: 'text', text: delta.refusal });
      }
      for (const tc of delta.tool_calls ?? []) this.#toolCallDelta(tc, emit);
      if (typeof choice.finish_reason === 'string' && this.#finish === undefined) {
        this.#finish = choice.finish_reason;
        for (const { call } of this.#calls.values()) call.finished = true;
      }
    }
    this.done = this.#finish !== undefined && this.#usageSeen;
  }

  #toolCallDelta(tc: ChunkToolCall, emit: (delta: ModelDelta) => void): void {
    const index = typeof tc.index === 'number' ? tc.index : this.#calls.size;
    const args = typeof tc.function?.arguments === 'string' ? tc.function.arguments : '';
    let entry = this.#calls.get(index);
    if (!entry) {
      const call: CollectedCall = {
        type: 'tool_call',
        id: typeof tc.id === 'string' ? tc.id : '',
        name: typeof tc.function?.name === 'string' ? tc.function.name : '',
        argsText: '',
        finished: false,
      };
      entry = { call, ordinal: this.#calls.size };
      this.#calls.set(index, entry);
      this.collected.blocks.push(call);
      emit({ kind: 'tool_call_start', index: entry.ordinal, id: call.id, name: call.name });
    } else {
      if (!entry.call.id && typeof tc.id === 'string') entry.call.id = tc.id;
      if (!entry.call.name && typeof tc.function?.name === 'string') entry.call.name = tc.function.name;
    }
    if (args) {
      entry.call.argsText += args;
      emit({ kind: 'tool_args', index: entry.ordinal, json: args });
    }
  }

  result(options: FinishOptions): ModelResult {
    if (this.#chunks === 0) return transportFailure('malformed_stream', 'the stream ended before its first chunk');
    if (this.#finish === undefined) {
      return transportFailure('malformed_stream', 'the stream ended before a finish_reason', this.collected.usage ? { usage: this.collected.usage } : {});
    }
    return finishResult(this.collected, chatStop(this.#finish, (this.collected.refusalText ?? '') !== ''), options);
  }
}

interface Completion {
  choices?: {
    index?: unknown;
    finish_reason?: unknown;
    message?: {
      content?: unknown;
      refusal?: unknown;
      tool_calls?: { id?: unknown; type?: unknown; function?: { name?: unknown; arguments?: unknown } }[] | null;
    };
  }[];
  usage?: unknown;
}

/** A complete (non-streaming) chat completion. */
export function resultFromCompletion(body: unknown, options: FinishOptions): ModelResult {
  const c = body as Completion;
  const choice = Array.isArray(c?.choices) ? (c.choices.find((x) => x.index === 0) ?? c.choices[0]) : undefined;
  if (!choice || typeof choice !== 'object') {
    return transportFailure('malformed_stream', 'the response body is not a chat completion (no choices)');
  }
  const collected = emptyCollected();
  const usage = openAIUsage(c.usage);
  if (usage) collected.usage = usage;
  const message = choice.message ?? {};
  if (typeof message.content === 'string') appendText(collected, message.content);
  else if (Array.isArray(message.content)) appendText(collected, partsText(message.content));
  if (typeof message.refusal === 'string' && message.refusal !== '') collected.refusalText = message.refusal;
  for (const tc of message.tool_calls ?? []) {
    if (tc.type !== undefined && tc.type !== 'function') continue;
    collected.blocks.push({
      type: 'tool_call',
      id: String(tc.id ?? ''),
      name: String(tc.function?.name ?? ''),
      argsText: typeof tc.function?.arguments === 'string' ? tc.function.arguments : '',
      finished: true,
    });
  }
  if (typeof choice.finish_reason !== 'string') {
    return transportFailure('malformed_stream', 'the completion has no finish_reason', usage ? { usage } : {});
  }
  return finishResult(collected, chatStop(choice.finish_reason, (collected.refusalText ?? '') !== ''), options);
}
