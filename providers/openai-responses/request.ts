/**
 * ModelRequest → the Responses API request body. Exported so the exact body can
 * be logged and tested.
 *
 * - The system prompt is `instructions`.
 * - The conversation is sent whole as `input` items (stateless: `store` is false
 *   unless asked): user text as user messages, assistant text as assistant
 *   messages, tool calls as `function_call` items, tool results as
 *   `function_call_output` items in call order before the user's text.
 * - Function tools are sent with `strict: false`: the schema is used as declared
 *   (strict mode would require every property and no extra ones).
 */
import type OpenAI from 'openai';
import type { Message, ModelRequest } from '../../src/kernel/index.ts';

type InputItem = OpenAI.Responses.ResponseInputItem;

export interface ResponsesRequestOptions {
  readonly store?: boolean;
}

function toInputItems(message: Message): InputItem[] {
  const items: InputItem[] = [];
  if (message.role === 'user') {
    for (const block of message.content) {
      if (block.type === 'tool_result') items.push({ type: 'function_call_output', call_id: block.callId, output: block.content });
    }
    const texts = message.content.flatMap((b) => (b.type === 'text' && b.text !== '' ? [b.text] : []));
    if (texts.length === 1) items.push({ role: 'user', content: texts[0]! });
    else if (texts.length > 1) items.push({ role: 'user', content: texts.map((text) => ({ type: 'input_text' as const, text })) });
    return items;
  }
  for (const block of message.content) {
    if (block.type === 'text') {
      if (block.text !== '') items.push({ role: 'assistant', content: block.text });
    } else {
      items.push({ type: 'function_call', call_id: block.id, name: block.name, arguments: JSON.stringify(block.args ?? {}) });
    }
  }
  return items;
}

export function toResponsesBody(
  request: ModelRequest,
  model: string,
  options: ResponsesRequestOptions = {},
): OpenAI.Responses.ResponseCreateParamsNonStreaming {
  return {
    model,
    ...(request.system !== '' ? { instructions: request.system } : {}),
    input: request.messages.flatMap(toInputItems),
    max_output_tokens: request.maxTokens,
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            type: 'function' as const,
            name: tool.name,
            description: tool.description,
            parameters: tool.inputSchema as Record<string, unknown>,
            strict: false,
          })),
        }
      : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    store: options.store ?? false,
  };
}
