/**
 * What an adapter collected from one response (streamed or not), and how it
 * becomes exactly one normalized result. The provider-specific part is only the
 * mapping of its stop reason to a `StopCategory`.
 */
import { type AssistantBlock, type ModelResult, type ToolCall, type Usage, textOf, lenientParse } from '../../src/kernel/index.ts';
import { transportFailure } from './results.ts';
import { unwrapParallelCalls } from './parallel-wrapper.ts';

export interface CollectedText {
  readonly type: 'text';
  text: string;
}

export interface CollectedCall {
  readonly type: 'tool_call';
  id: string;
  name: string;
  /** The argument text as streamed or sent. */
  argsText: string;
  /** The provider said this call ended (block stop / item done / whole message). */
  finished: boolean;
  /** Already-parsed arguments, when the provider sent an object rather than text. */
  parsedArgs?: unknown;
}

export type CollectedBlock = CollectedText | CollectedCall;

export interface Collected {
  readonly blocks: CollectedBlock[];
  refusalText?: string;
  usage?: Usage;
}

export type StopCategory = 'reply' | 'tool_use' | 'max_tokens' | 'refusal' | 'overflow' | 'unknown';

export interface StopInfo {
  readonly category: StopCategory;
  /** The provider's raw stop reason. */
  readonly raw: string | undefined;
  readonly details?: unknown;
}

export interface FinishOptions {
  /** OpenAI only: unwrap `multi_tool_use.parallel` unless a tool by that name was declared. */
  readonly declaredTools?: readonly string[];
  readonly unwrapParallel?: boolean;
}

export function emptyCollected(): Collected {
  return { blocks: [] };
}

/** Appends streamed text, opening a new text block when the last block is not text. */
export function appendText(collected: Collected, text: string): void {
  if (!text) return;
  const last = collected.blocks.at(-1);
  if (last?.type === 'text') last.text += text;
  else collected.blocks.push({ type: 'text', text });
}

function strictJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * A call is partial when its arguments may have been cut: the provider never
 * finished it, or generation stopped on the token limit inside it (the last block,
 * with no argument text yet or text that is not complete JSON). A finished call
 * with bad JSON under a normal stop is not partial: it is the model's mistake, and
 * lenient parsing and validation tell the model about it.
 */
export function isPartialCall(call: CollectedCall, category: StopCategory, isLastBlock: boolean): boolean {
  if (call.parsedArgs !== undefined) return false;
  if (!call.finished) return true;
  if (category !== 'max_tokens' || !isLastBlock) return false;
  const text = call.argsText.trim();
  return text === '' || !strictJson(text);
}

function toToolCall(call: CollectedCall): ToolCall {
  if (call.parsedArgs !== undefined) {
    return { id: call.id, name: call.name, args: call.parsedArgs, rawArgs: JSON.stringify(call.parsedArgs) };
  }
  const parsed = lenientParse(call.argsText);
  return { id: call.id, name: call.name, args: parsed.ok ? parsed.value : call.argsText, rawArgs: call.argsText };
}

function withMeta<T extends ModelResult>(result: T, collected: Collected, stop: StopInfo): T {
  return {
    ...result,
    ...(collected.usage ? { usage: collected.usage } : {}),
    ...(stop.raw !== undefined ? { stopReason: stop.raw } : {}),
  };
}

export function finishResult(collected: Collected, stop: StopInfo, options: FinishOptions = {}): ModelResult {
  const blocks = collected.blocks;
  const lastIndex = blocks.length - 1;
  const partial = new Set<CollectedCall>();
  blocks.forEach((block, i) => {
    if (block.type === 'tool_call' && isPartialCall(block, stop.category, i === lastIndex)) partial.add(block);
  });

  // Content: non-empty text, complete calls, in the order the model produced them.
  const content: AssistantBlock[] = [];
  const calls: ToolCall[] = [];
  for (const block of blocks) {
    if (block.type === 'text') {
      if (block.text) content.push({ type: 'text', text: block.text });
      continue;
    }
    if (partial.has(block)) continue;
    const expanded = options.unwrapParallel ? unwrapParallelCalls(toToolCall(block), options.declaredTools ?? []) : [toToolCall(block)];
    for (const call of expanded) {
      calls.push(call);
      content.push({ type: 'tool_call', id: call.id, name: call.name, args: call.args });
    }
  }
  const text = textOf(content);

  switch (stop.category) {
    case 'reply':
    case 'tool_use': {
      if (partial.size > 0) {
        const names = [...partial].map((c) => c.name).join(', ');
        return withMeta(
          transportFailure('malformed_stream', `the response ended (${stop.raw ?? 'no stop reason'}) with unfinished tool call arguments: ${names}`),
          collected,
          { category: stop.category, raw: undefined },
        );
      }
      if (calls.length > 0) return withMeta({ type: 'tool_use', content, calls, text }, collected, stop);
      if (stop.category === 'tool_use') {
        // The provider said "tool use" but sent no call: not something the loop can act on.
        return withMeta({ type: 'unknown', stopReason: stop.raw ?? 'tool_use', content, text }, collected, stop);
      }
      return withMeta({ type: 'reply', content, text }, collected, stop);
    }
    case 'max_tokens':
      return withMeta({ type: 'max_tokens', content, text, partialToolCall: partial.size > 0 }, collected, stop);
    case 'refusal':
      return withMeta(
        {
          type: 'refusal',
          text: collected.refusalText ?? text,
          ...(stop.details !== undefined && stop.details !== null ? { details: stop.details } : {}),
        },
        collected,
        stop,
      );
    case 'overflow':
      return withMeta(
        { type: 'context_window_exceeded', at: 'generation', content, message: 'the context window filled up during generation' },
        collected,
        stop,
      );
    case 'unknown':
      return withMeta({ type: 'unknown', stopReason: stop.raw ?? '', content, text }, collected, stop);
  }
}
